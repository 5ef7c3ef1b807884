import { describe, expect, it } from "vitest";
import { formatClock } from "../format";
import { outageSpans, reloadNote, restartMarks, restartNote } from "./marks";

const at = new Date(2025, 5, 1, 14, 2, 11).getTime();

describe("restartNote", () => {
  it.each([
    { changes: [{ name: "io_method", before: "worker", after: "sync" }], text: "Restarted 14:02:11: io_method worker -> sync" },
    {
      changes: [
        { name: "io_method", before: "sync", after: "worker" },
        { name: "io_workers", before: "3", after: "6" },
      ],
      text: "Restarted 14:02:11: io_method sync -> worker, io_workers 3 -> 6",
    },
    { changes: [], text: "Restarted 14:02:11: no io setting changed" },
    { changes: [{ name: "io_uring_x", before: null, after: "on" }], text: "Restarted 14:02:11: io_uring_x (unset) -> on" },
  ])("$text", ({ changes, text }) => expect(restartNote({ at, seenAt: at + 500, changes })).toBe(text));
});

describe("reloadNote", () => {
  it("names each setting the reload changed, at its pg_conf_load_time()", () => {
    expect(
      reloadNote({
        at,
        seenAt: at + 50,
        changes: [
          { name: "io_workers", before: "3", after: "1" },
          { name: "effective_io_concurrency", before: "16", after: "64" },
        ],
      }),
    ).toBe("Reloaded 14:02:11: io_workers 3 -> 1, effective_io_concurrency 16 -> 64");
  });
});

describe("restartMarks", () => {
  // Issue 19: two restarts seconds apart drew their labels over each other.
  it("gives restarts closer than a label's width one label, on the newest", () => {
    const restarts = [at, at + 5_000, at + 200_000].map((t) => ({ at: t, seenAt: t, changes: [] }));
    const marks = restartMarks(restarts, { from: at - 60_000, to: at + 240_000 }, 560);
    expect(marks).toEqual([
      { at, label: "" },
      { at: at + 5_000, label: `restart ${formatClock(at + 5_000)} (+1)` },
      { at: at + 200_000, label: `restart ${formatClock(at + 200_000)}` },
    ]);
  });

  it("keeps the restarts in view", () => {
    const restarts = [at - 100_000, at, at + 100_000].map((t) => ({ at: t, seenAt: t, changes: [] }));
    expect(restartMarks(restarts, { from: at - 1000, to: at + 1000 })).toEqual([{ at, label: `restart ${formatClock(at)}` }]);
  });
});

describe("outageSpans", () => {
  it.each([
    { name: "inside", o: { from: 200, to: 300 }, span: { from: 200, to: 300, ongoing: false } },
    { name: "clipped on the left", o: { from: 0, to: 300 }, span: { from: 100, to: 300, ongoing: false } },
    { name: "ongoing", o: { from: 800, to: null }, span: { from: 800, to: 1000, ongoing: true } },
    { name: "before the view", o: { from: 0, to: 50 }, span: null },
  ])("$name", ({ o, span }) => expect(outageSpans([o], { from: 100, to: 1000 })).toEqual(span ? [span] : []));
});
