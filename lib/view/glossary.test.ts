import { describe, expect, it } from "vitest";
import { gloss, glossText, sentenceParts, TERMS } from "./glossary";

describe("glossary", () => {
  // The words issue 11's newcomer did not know, each with a plain explanation.
  it.each([
    "pg_aios",
    "handle",
    "f_sync",
    "COMPLETED_IO",
    "COMPLETED_SHARED",
    "IoWorkerMain",
    "AioIoCompletion",
    "DataFileRead",
    "AioIoUringSubmit",
    "AioIoUringExecution",
    "AioWorkerControl",
    "io_max_concurrency",
    "parallel",
    "io_uring",
  ] as const)("explains %s", (term) => {
    expect(TERMS).toContain(term);
    expect(gloss(term).length).toBeGreaterThan(30);
  });

  it.each([
    [18, "PostgreSQL 18"],
    [19, "PostgreSQL 19"],
    [null, "PostgreSQL 18 and 19"],
  ] as const)("says which major's index lookups read synchronously: the target's (%s)", (major, named) => {
    expect(gloss("DataFileRead", major)).toContain(`what index lookups do in ${named}, `);
  });

  it("glosses 19's LWLock:AioWorkerControl by its full name, as the waits chart shows it", () => {
    expect(glossText("waits on LWLock:AioWorkerControl").find((p) => p.term)).toEqual({
      text: "LWLock:AioWorkerControl",
      term: "AioWorkerControl",
    });
  });

  it("marks a term once, as a whole word", () => {
    const parts = glossText("async handles in flight; handles again; io_workers_idle_timeout is not io_workers");
    expect(parts.filter((p) => p.term).map((p) => [p.text, p.term])).toEqual([
      ["handles", "handle"],
      ["io_workers", "io_workers"],
    ]);
    expect(parts.map((p) => p.text).join("")).toBe("async handles in flight; handles again; io_workers_idle_timeout is not io_workers");
  });

  it("takes the longest name: IO:AioIoCompletion, not AioIoCompletion inside it", () => {
    expect(glossText("waits on IO:AioIoCompletion").find((p) => p.term)).toEqual({ text: "IO:AioIoCompletion", term: "AioIoCompletion" });
  });
});

describe("sentenceParts", () => {
  it("keeps a quoted query as code, never glossed, and the rest as text", () => {
    const parts = sentenceParts("Slowest running: pid 7 `select * from pg_aios` on t; waiting on IO:DataFileRead");
    expect(parts.find((p) => p.code)).toEqual({ text: "select * from pg_aios", code: true });
    expect(parts.filter((p) => p.term).map((p) => p.term)).toEqual(["DataFileRead"]);
    expect(parts.map((p) => p.text).join("")).toBe("Slowest running: pid 7 select * from pg_aios on t; waiting on IO:DataFileRead");
  });

  it("leaves hostile text as text (it is rendered as text nodes)", () => {
    const parts = sentenceParts("`<img src=x onerror=alert(1)>` done");
    expect(parts[0]).toEqual({ text: "<img src=x onerror=alert(1)>", code: true });
  });
});
