// Where the io_uring server cannot run, the io_uring tests fail with the
// reason; only IOURING_TESTS=skip lets the run go on without them.
import { afterEach, describe, expect, it } from "vitest";
import { SKIP_ENV, unavailableOrThrow } from "./support/iouring";

describe("a machine that cannot run the io_uring server", () => {
  const before = process.env[SKIP_ENV];
  afterEach(() => {
    if (before === undefined) delete process.env[SKIP_ENV];
    else process.env[SKIP_ENV] = before;
  });

  it("fails the run, naming why and how to go on without them", () => {
    delete process.env[SKIP_ENV];
    expect(() => unavailableOrThrow("io_uring is disabled (/proc/sys/kernel/io_uring_disabled = 2)")).toThrow(
      "the io_uring tests cannot run here: io_uring is disabled (/proc/sys/kernel/io_uring_disabled = 2). Fix that, or set IOURING_TESTS=skip to run the rest without them",
    );
    process.env[SKIP_ENV] = "yes";
    expect(() => unavailableOrThrow("not root")).toThrow(/cannot run here: not root/);
  });

  it("is left out, saying so, only when asked", () => {
    process.env[SKIP_ENV] = "skip";
    expect(unavailableOrThrow("not root")).toEqual({ ok: false, why: "not root (IOURING_TESTS=skip)" });
  });
});
