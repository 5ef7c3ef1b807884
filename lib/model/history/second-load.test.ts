import { describe, expect, it } from "vitest";
import { activeBackend, tick } from "../../../test/support/fixtures";
import { TargetWindow } from "../window/window";
import { SampleRecorder } from "./samples";
import { loadsBySecond } from "./second-load";
import type { AioHandle, SampledBackend } from "../../schemas/rows";

const waiting = { "IO:AioIoCompletion": 2 };

describe("a second's load over all its samples", () => {
  it("counts every sample, not the kept one: full, waiting, reading, and the peaks of the full ones", () => {
    const ticks = [
      tick(1, 10_000, { workers: { configured: 1, alive: 1, busy: 1 }, waits: waiting, aio: { inFlight: 4, byState: { SUBMITTED: 4 } } }),
      tick(2, 10_100, { workers: { configured: 1, alive: 1, busy: 0 }, waits: { "IO:DataFileRead": 1 } }),
      tick(3, 10_200, { workers: { configured: 1, alive: 1, busy: 0 } }),
      tick(4, 10_300, { workers: { configured: 1, alive: 1, busy: 1, launched: 1 }, waits: waiting, extra: true }),
      tick(5, 11_000, {
        workers: { configured: 1, alive: 1, busy: 0 },
        waits: { "IO:AioIoCompletion": 1 },
        aio: { inFlight: 1, byState: { SUBMITTED: 2 } },
      }),
    ];
    const [first, second] = loadsBySecond(ticks);
    expect(first).toMatchObject({
      t: 10_000,
      load: { samples: 3, reading: 1, waiting: 2, full: 1, launched: 1, maxBusy: 1, peakWaiting: 2, peakSubmitted: 4, atMax: 0 },
    });
    // Two SUBMITTED against one worker while a backend waits: queued, so full.
    expect(second.load).toMatchObject({ samples: 1, reading: 1, full: 1, peakSubmitted: 2 });
  });

  it("19's pool: at io_max_workers, full there, and idle at io_min_workers", () => {
    const ticks = [
      tick(1, 5_000, { workers: { configured: 1, max: 2, alive: 2, busy: 2 }, waits: waiting }),
      tick(2, 5_100, { workers: { configured: 1, max: 2, alive: 2, busy: 1 } }),
      tick(3, 5_200, { workers: { configured: 1, max: 2, alive: 1, busy: 0, exited: 1 } }),
    ];
    expect(loadsBySecond(ticks)[0].load).toMatchObject({ samples: 3, atMax: 2, fullAtMax: 1, idleAtMin: 1, exited: 1, maxAlive: 2 });
  });

  it("18 has no pool: never at a maximum nor idle at a minimum", () => {
    const [s] = loadsBySecond([tick(1, 0, { workers: { configured: 3, alive: 3, busy: 0 } })]);
    expect(s.load).toMatchObject({ atMax: 0, idleAtMin: 0 });
  });
});

describe("SampleRecorder keeps each second's load beside its busiest tick", () => {
  const scan = (handles: AioHandle[] | null): SampledBackend => activeBackend(10, 1000, { query: "select 1", handles });
  const handle: AioHandle = ["SUBMITTED", "readv", 131072, false, 'blocks 0..15 in file "base/5/100"'];

  it("the row of a second counts all three of its samples", () => {
    const w = new TargetWindow(60_000);
    const r = new SampleRecorder();
    const view = {
      ticksSince: (s: number) => w.ticksSince(s),
      ioSince: (s: number) => w.ioSince(s),
      queries: () => w.queries(),
      findings: { findings: [] },
      blockSize: 8192,
    };
    w.addActivity(20_000, [scan([handle])], "read");
    w.addActivity(20_300, [scan([handle, handle])], "read");
    w.addActivity(20_600, [], "read");
    r.next(20_600, view);
    w.addActivity(21_000, [], "read");
    const [row] = r.next(21_000, view).ticks;
    expect(row.load).toMatchObject({ samples: 3, reading: 2, waiting: 2 });
  });
});
