// The sizing counters /metrics exports (issue 41's fleet part): each sample
// counted by the same test the sizing view applies to it (workersFull), its
// denominator a superset of it, and 19's pool at its maximum.
import { describe, expect, it } from "vitest";
import { tick } from "../../../test/support/fixtures";
import type { Tick } from "../../schemas/tick";
import { SampleTotals } from "./totals";

const WAIT = { "IO:AioIoCompletion": 2 };
const QUEUE_WAIT = { "LWLock:AioWorkerSubmissionQueue": 1 };

type Counted = Pick<SampleTotals, "workersQueueSamples" | "workersAwaitedSamples" | "poolAtMaxSamples" | "poolAtMaxQueueSamples">;
const counted = (queue: number, awaited: number, atMax = 0, atMaxQueue = 0): Counted => ({
  workersQueueSamples: queue,
  workersAwaitedSamples: awaited,
  poolAtMaxSamples: atMax,
  poolAtMaxQueueSamples: atMaxQueue,
});

describe("SampleTotals: the io workers' queue and 19's pool at its maximum", () => {
  it.each<[string, Tick["workers"] | Partial<Tick["workers"]>, Tick["waits"], Partial<NonNullable<Tick["aio"]>> | undefined, Counted]>([
    ["18, 1 of 1 busy while a backend waits on its reads: the queue", { alive: 1, busy: 1 }, WAIT, undefined, counted(1, 1)],
    ["18, 1 of 3 busy while a backend waits: waited for, not the queue", { alive: 3, busy: 1 }, WAIT, undefined, counted(0, 1)],
    ["18, 3 of 3 busy, nobody waiting: neither", { alive: 3, busy: 3 }, { CPU: 2 }, undefined, counted(0, 0)],
    [
      "18, idle-looking worker, more reads SUBMITTED than workers: the queue",
      { alive: 1, busy: 0 },
      WAIT,
      { byState: { SUBMITTED: 4 } },
      counted(1, 1),
    ],
    ["18, a backend waiting to hand a read over: the queue, and waited for", { alive: 3, busy: 0 }, QUEUE_WAIT, undefined, counted(1, 1)],
    [
      "sync: no io worker, a backend waiting on its reads: neither",
      { configured: 0, alive: 0, busy: 0 },
      { "IO:DataFileRead": 1 },
      undefined,
      counted(0, 0),
    ],
    [
      "19, pool at io_max_workers and full: at max, and at max while the queue",
      { alive: 4, busy: 4, max: 4 },
      WAIT,
      undefined,
      counted(1, 1, 1, 1),
    ],
    ["19, pool at io_max_workers, idle: at max only", { alive: 4, busy: 0, max: 4 }, {}, undefined, counted(0, 0, 1, 0)],
    ["19, pool below io_max_workers, full: the queue, not at max", { alive: 2, busy: 2, max: 8 }, WAIT, undefined, counted(1, 1, 0, 0)],
  ])("%s", (_, workers, waits, aio, expected) => {
    const totals = new SampleTotals();
    totals.add(tick(1, 1000, { workers: { configured: 3, alive: 3, busy: 0, ...workers }, waits, aio }));
    expect(totals).toMatchObject(expected);
    expect(totals.workersQueueSamples).toBeLessThanOrEqual(totals.workersAwaitedSamples);
  });

  it("accumulates over samples", () => {
    const totals = new SampleTotals();
    const full = { workers: { configured: 1, alive: 1, busy: 1 }, waits: WAIT };
    const waiting = { workers: { configured: 1, alive: 1, busy: 0 }, waits: WAIT };
    [full, full, waiting, { waits: { CPU: 1 } }].forEach((over, i) => totals.add(tick(i + 1, 1000 + i * 100, over)));
    expect(totals).toMatchObject({ samples: 4, ...counted(2, 3) });
  });
});
