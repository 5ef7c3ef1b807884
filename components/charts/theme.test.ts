import { describe, expect, it } from "vitest";
import { waitColor } from "./theme";

describe("waitColor", () => {
  it("gives the io workers' LWLocks colours of their own: the submission queue and 19's pool control apart", () => {
    const queue = waitColor("LWLock:AioWorkerSubmissionQueue");
    const control = waitColor("LWLock:AioWorkerControl");
    expect(control).toMatch(/^#[0-9a-f]{6}$/);
    expect(control).not.toBe(queue);
    expect([waitColor("IO:AioIoCompletion"), waitColor("IO:DataFileRead"), waitColor("CPU")]).not.toContain(control);
  });
});
