import { describe, expect, it } from "vitest";
import { deriveSample } from "./derive";
import type { AioHandle, SampledBackend } from "../../schemas/rows";
import { RunStore } from "./runs";
import { advanceSpan, spanProgress, type ScanSpan } from "./scan-span";

function scan(pid: number, wait: [string | null, string | null], handles: AioHandle[] | null): SampledBackend {
  return {
    pid,
    leader_pid: null,
    backend_type: "client backend",
    state: "active",
    wait_event_type: wait[0],
    wait_event: wait[1],
    query_id: "7",
    query_start_ms: 1000,
    state_change_ms: 1000,
    datname: "db",
    usename: "u",
    query: "select count(*) from t",
    handles,
  };
}
const asyncHandle = (last: number, file = 100): AioHandle => [
  "SUBMITTED",
  "readv",
  131072,
  false,
  `blocks ${last - 15}..${last} in file "base/5/${file}"`,
];
const syncHandle = (block: number, file: number): AioHandle => [
  "SUBMITTED",
  "readv",
  8192,
  true,
  `block ${block} in file "base/5/${file}"`,
];

describe("RunStore", () => {
  const lookup = (dbOid: number, filenode: number) => ({ name: "public.t", dbOid, filenode, blocks: 1000 });

  it("accumulates a scan's samples, progress and verdict, and ends it", () => {
    const store = new RunStore(lookup);
    const samples: SampledBackend[][] = [
      [scan(10, ["IO", "AioIoCompletion"], [asyncHandle(99), asyncHandle(115)])],
      [scan(10, [null, null], [asyncHandle(499)])],
      [scan(10, ["IO", "AioIoCompletion"], null)],
      [],
    ];
    samples.forEach((rows, i) => store.observe(2000 + i * 100, deriveSample(2000 + i * 100, rows, 3).runs));
    const [run] = store.list();
    expect(run).toMatchObject({
      id: "10:1000",
      samples: 3,
      ioWaitSamples: 2,
      aioWaitSamples: 2,
      cpuSamples: 1,
      aioSamples: 2,
      syncSamples: 0,
      maxInFlight: 2,
      sumInFlight: 3,
      verdict: "async",
      endedAt: 2300,
      progress: 0.5,
      progressRelation: "public.t",
    });
    expect(run.relations.map((r) => [r.name, r.read])).toEqual([["public.t", "async"]]);
  });

  it("names relations read synchronously (index pages) without taking progress from them", () => {
    const names: Record<number, string> = { 100: "public.t", 200: "public.t_pkey" };
    const store = new RunStore((dbOid, filenode) => ({ name: names[filenode], dbOid, filenode, blocks: 1000 }));
    const samples: SampledBackend[][] = [
      [scan(10, ["IO", "DataFileRead"], [syncHandle(990, 200)])],
      [scan(10, ["IO", "DataFileRead"], [syncHandle(3, 100)])],
    ];
    samples.forEach((rows, i) => store.observe(2000 + i * 100, deriveSample(2000 + i * 100, rows, 3).runs));
    const [run] = store.list();
    expect(run.verdict).toBe("sync");
    expect(run.progress).toBeNull();
    expect(run.relations.map((r) => [r.name, r.read]).sort()).toEqual([
      ["public.t", "sync"],
      ["public.t_pkey", "sync"],
    ]);
  });

  it("is async with the synchronous share visible when a run reads both ways", () => {
    const store = new RunStore(lookup);
    const samples: SampledBackend[][] = [
      [scan(10, ["IO", "AioIoCompletion"], [asyncHandle(99)])],
      [scan(10, ["IO", "DataFileRead"], [syncHandle(7, 200)])],
      [scan(10, [null, null], [asyncHandle(115), syncHandle(8, 100)])],
    ];
    samples.forEach((rows, i) => store.observe(2000 + i * 100, deriveSample(2000 + i * 100, rows, 3).runs));
    const [run] = store.list();
    expect(run).toMatchObject({ verdict: "async", aioSamples: 2, syncSamples: 2, readWaitSamples: 1, aioWaitSamples: 1 });
    expect(run.progress).toBeCloseTo(116 / 1000);
    expect(Object.fromEntries(run.relations.map((r) => [r.filenode, r.read]))).toEqual({ 100: "both", 200: "sync" });
  });

  it("takes the query id from a later sample when the first came before parse analysis", () => {
    const store = new RunStore(lookup);
    store.observe(1, deriveSample(1, [{ ...scan(10, [null, null], null), query_id: null }], 0).runs);
    store.observe(2, deriveSample(2, [scan(10, [null, null], null)], 0).runs);
    expect(store.list()[0].queryId).toBe("7");
  });

  it("ends a run when its statement ended, from the idle backend's state_change, not at the next sample", () => {
    const store = new RunStore(lookup);
    // Seen once at the idle cadence (1 s), then idle 450 ms after its start: it ran 0.45 s, not 1.4.
    store.observe(1420, deriveSample(1420, [scan(10, ["IO", "DataFileRead"], null)], 0).runs);
    const next = deriveSample(2420, [{ ...scan(10, ["Client", "ClientRead"], null), state: "idle", state_change_ms: 1450 }], 0);
    expect(next.runs).toEqual([]);
    store.observe(2420, next.runs, next.backends);
    expect(store.list().map((r) => [r.id, r.samples, r.lastSeen, r.endedAt])).toEqual([["10:1000", 1, 1420, 1450]]);
  });

  it.each([
    ["idle in its transaction: when the statement ended", { state: "idle in transaction", state_change_ms: 1700 }, 1700],
    [
      "idle after another statement (a COMMIT) begun since: when that one began",
      { state: "idle in transaction", query_start_ms: 1800, state_change_ms: 1801 },
      1800,
    ],
    ["running the next statement: when that one began", { state: "active", query_start_ms: 1900 }, 1900],
    [
      "a state_change before the last sample that saw it active (another clock): that sample",
      { state: "idle", state_change_ms: 1200 },
      1420,
    ],
    ["a state_change after this sample: this sample", { state: "idle", state_change_ms: 9000 }, 2420],
    ["its backend gone (disconnected): this sample", null, 2420],
  ])("%s", (_, row, want) => {
    const store = new RunStore(lookup);
    store.observe(1420, deriveSample(1420, [scan(10, [null, null], null)], 0).runs);
    const next = deriveSample(2420, row === null ? [] : [{ ...scan(10, ["Client", "ClientRead"], null), ...row }], 0);
    store.observe(2420, next.runs, next.backends);
    expect(store.list().find((r) => r.id === "10:1000")?.endedAt).toBe(want);
  });

  it("hands out one view per run until the run or the name of a file it read changes", () => {
    const names: Record<number, { name: string; blocks: number | null }> = { 100: { name: "db: file 100", blocks: null } };
    const store = new RunStore((dbOid, filenode) => ({ dbOid, filenode, ...names[filenode] }));
    const running = (t: number, last: number) =>
      store.observe(t, deriveSample(t, [{ ...scan(10, ["IO", "AioIoCompletion"], [asyncHandle(last)]), pid: 10 }], 3).runs);
    running(2000, 99);
    store.observe(
      2000,
      deriveSample(
        2000,
        [scan(10, ["IO", "AioIoCompletion"], [asyncHandle(99)]), { ...scan(20, [null, null], [asyncHandle(99)]), query_start_ms: 1500 }],
        3,
      ).runs,
    );
    const first = store.list();
    // Nothing changed: the same objects, not copies.
    expect(store.list()).toEqual(first);
    store.list().forEach((r, i) => expect(r).toBe(first[i]));
    // Run 20 ends; run 10 takes a sample: each is a new view, and only they.
    running(2100, 499);
    const second = store.list();
    expect(second.map((r) => [r.id, r.endedAt])).toEqual([
      ["10:1000", null],
      ["20:1500", 2100],
    ]);
    expect(second[0]).not.toBe(first[0]);
    expect(second[1]).not.toBe(first[1]);
    expect(store.list()[1]).toBe(second[1]);
    // The file is named and sized: the ended run's view follows, once.
    expect(second[1].relations[0].name).toBe("db: file 100");
    names[100] = { name: "public.t", blocks: 1000 };
    const named = store.list()[1];
    expect(named).not.toBe(second[1]);
    expect(named).toMatchObject({ relations: [{ name: "public.t", read: "async" }], progressRelation: "public.t", progress: 0.1 });
    expect(store.list()[1]).toBe(named);
    expect(store.get("20:1500")).toBe(named);
  });

  // Issue 40: the time left, a range from the run's whole trail, counted down between positions, gone at its end.
  it("gives a running scan a time left and its range once it has moved for a second, and none once it ended", () => {
    const store = new RunStore(lookup);
    const at = (t: number, last: number) =>
      store.observe(t, deriveSample(t, [scan(10, ["IO", "AioIoCompletion"], [asyncHandle(last)])], 3).runs);
    // 100 blocks a second from block 15, in a 1000-block table.
    for (let t = 2000; t < 2900; t += 100) at(t, 15 + (t - 2000) / 10);
    expect(store.list()[0]).toMatchObject({ etaMs: null, etaRangeMs: null });
    for (let t = 2900; t <= 4000; t += 100) at(t, 15 + (t - 2000) / 10);
    const run = store.list()[0];
    // 215 of 1000 blocks covered (0..215): 784 left at 100 a second.
    expect(run.etaMs).toBeCloseTo(7840, -2);
    expect(run.etaRangeMs![0]).toBeLessThan(run.etaMs!);
    expect(run.etaRangeMs![1]).toBeGreaterThan(run.etaMs!);
    // A sample with no read to see (blocks already in shared buffers): the time left still counts down.
    store.observe(4300, deriveSample(4300, [scan(10, [null, null], [])], 3).runs);
    expect(store.list()[0].etaMs).toBe(run.etaMs! - 300);
    store.observe(4400, []);
    expect(store.list()[0]).toMatchObject({ etaMs: null, etaRangeMs: null });
  });

  it("keeps a run per pid and query start", () => {
    const store = new RunStore(lookup);
    store.observe(1, deriveSample(1, [scan(10, [null, null], null)], 0).runs);
    store.observe(2, deriveSample(2, [{ ...scan(10, [null, null], null), query_start_ms: 1500 }], 0).runs);
    const runs = store.list();
    expect(runs.map((r) => [r.id, r.endedAt])).toEqual([
      ["10:1500", null],
      ["10:1000", 2],
    ]);
  });
});

describe("scan progress", () => {
  const at = (first: number, last: number) => ({ dbOid: 5, filenode: 100, first, last });
  const walk = (spans: [number, number][]): ScanSpan =>
    spans.reduce<ScanSpan | undefined>((span, [f, l]) => advanceSpan(span, at(f, l)), undefined)!;

  it.each([
    [
      "a scan first seen near block 0: counted from 0",
      [
        [80, 95],
        [300, 331],
        [600, 615],
      ],
      616 / 1000,
    ],
    [
      "a synchronized scan begun mid-table: counted from the first block seen",
      [
        [600, 615],
        [900, 931],
      ],
      332 / 1000,
    ],
    [
      "after it wraps: still rising",
      [
        [600, 615],
        [990, 999],
        [100, 115],
      ],
      (400 + 116) / 1000,
    ],
    [
      "a sample straddling the wrap (parallel workers) counts its lowest block",
      [
        [600, 615],
        [984, 999],
        [5, 999],
      ],
      (400 + 6) / 1000,
    ],
    [
      "stragglers from before the wrap do not undo it",
      [
        [600, 615],
        [10, 40],
        [990, 999],
      ],
      (400 + 41) / 1000,
    ],
    [
      "a wrapped scan back at its start is complete",
      [
        [600, 615],
        [984, 999],
        [584, 599],
      ],
      1,
    ],
    [
      "a scan from block 0 that wraps (begun just before the first seen) stays at 1",
      [
        [50, 65],
        [984, 999],
        [10, 25],
      ],
      1,
    ],
  ] as [string, [number, number][], number][])("%s", (_name, spans, want) => {
    expect(spanProgress(walk(spans), 1000)).toBeCloseTo(want);
  });

  it("never falls as a synchronized scan wraps", () => {
    const spans: [number, number][] = [
      [570, 600],
      [640, 660],
      [700, 720],
      [900, 999],
      [0, 20],
      [200, 230],
      [500, 560],
    ];
    const seen = spans.map((_, i) => spanProgress(walk(spans.slice(0, i + 1)), 1000));
    for (let i = 1; i < seen.length; i++) expect(seen[i]).toBeGreaterThanOrEqual(seen[i - 1]);
  });
});
