// The bench's reading of a Chromium trace: each main-thread task's self time
// by kind of work (bench/lib/trace.ts), so a long task is named by what it did.
import { describe, expect, it } from "vitest";
import { anatomy, workOf } from "../bench/lib/trace";

const X = (name: string, ts: number, dur: number, tid = 1) => ({ name, ph: "X", ts, dur, pid: 9, tid });

describe("anatomy", () => {
  it("gives each task the self time of the work nested in it, children taken out of their parents", () => {
    const events = [
      X("RunTask", 0, 80_000),
      X("FunctionCall", 1_000, 30_000), // 10 ms of its own, 20 ms of a forced layout
      X("Layout", 5_000, 20_000),
      X("Paint", 40_000, 25_000),
      X("RunTask", 100_000, 5_000),
      X("UpdateLayoutTree", 101_000, 3_000),
      X("Layout", 200_000, 1_000), // outside any task: not a task of the thread
      X("RunTask", 0, 99_000, 2), // another thread
    ];
    const tasks = anatomy(events, 1, 9);
    expect(tasks.map((t) => t.ms)).toEqual([80, 5]);
    expect(Object.fromEntries(tasks[0].work)).toEqual({ "task (other)": 25, script: 10, layout: 20, paint: 25 });
    expect(Object.fromEntries(tasks[1].work)).toEqual({ "task (other)": 2, style: 3 });
  });

  it("names the trace's events by the work the figure counts", () => {
    expect(["FunctionCall", "TimerFire", "FireAnimationFrame", "v8.callFunction"].map(workOf)).toEqual([
      "script",
      "script",
      "script",
      "script",
    ]);
    expect(["UpdateLayoutTree", "Layout", "PrePaint", "Paint", "Layerize", "Commit", "MinorGC", "Something"].map(workOf)).toEqual([
      "style",
      "layout",
      "paint",
      "paint",
      "layerize",
      "commit",
      "gc",
      "other",
    ]);
  });
});
