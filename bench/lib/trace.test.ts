import { describe, expect, it } from "vitest";
import { anatomy, CLOCK_MARK, cpuOfLongTasks, taskClock } from "./trace";

// A renderer's main thread as a trace has it: the thread's name, a clock
// mark the page placed at performance.now() = 1000 ms (trace time 5,000,000
// µs), and top-level tasks with their wall (dur) and thread (tdur) time.
const PID = 7;
const TID = 11;
const meta = { ph: "M", name: "thread_name", pid: PID, tid: TID, ts: 0, args: { name: "CrRendererMain" } };
const mark = { ph: "R", name: CLOCK_MARK, pid: PID, tid: TID, ts: 5_000_000 };
const task = (atMs: number, ms: number, cpuMs?: number) => ({
  ph: "X",
  name: "ThreadControllerImpl::RunTask",
  pid: PID,
  tid: TID,
  ts: 5_000_000 + (atMs - 1000) * 1000,
  dur: ms * 1000,
  ...(cpuMs === undefined ? {} : { tdur: cpuMs * 1000 }),
});

describe("the main thread's own time in a long task", () => {
  it("puts the trace's tasks on the page's clock, each with its thread time", () => {
    const clock = taskClock([meta, mark, task(1200, 80, 20), task(1500, 4, 3)], 1000);
    expect(clock.tasks).toEqual([
      { start: 1200, ms: 80, cpuMs: 20 },
      { start: 1500, ms: 4, cpuMs: 3 },
    ]);
  });

  it("counts a task nested in another once, as the outer one", () => {
    const clock = taskClock([meta, mark, task(1200, 80, 20), task(1210, 30, 10)], 1000);
    expect(clock.tasks).toHaveLength(1);
    expect(clock.tasks[0].cpuMs).toBe(20);
  });

  it("gives each observed long task the thread time of the task that began with it", () => {
    const clock = taskClock([meta, mark, task(1200, 80, 20), task(2000, 120, 70), task(3000, 60)], 1000);
    // the observer's entries: one per long task, a little off the trace's figures
    const cpu = cpuOfLongTasks(
      [
        [2000.4, 121],
        [1199.6, 80],
        [3000, 60],
        [4000, 55],
      ],
      clock,
    );
    expect(cpu).toEqual([70, 20, null, null]); // no thread clock; no task in the trace there
  });

  it("does not take a short task that began at the same time for a long one", () => {
    const clock = taskClock([meta, mark, task(1200, 5, 5)], 1000);
    expect(cpuOfLongTasks([[1200, 80]], clock)).toEqual([null]);
  });

  it("refuses a trace with no main thread or no clock mark", () => {
    expect(() => taskClock([mark, task(1200, 80, 20)], 1000)).toThrow(/CrRendererMain/);
    expect(() => taskClock([meta, task(1200, 80, 20)], 1000)).toThrow(/mark/);
  });

  it("keeps anatomy's view of the same tasks", () => {
    expect(anatomy([meta, mark, task(1200, 80, 20)] as never, TID, PID).map((t) => t.ms)).toEqual([80]);
  });
});
