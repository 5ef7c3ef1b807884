// Issue 40: one read share per run. Its row (read-wait cell and verdict
// evidence), its finding and its verdict say the same figure in the same
// words: samples waiting on a read, async or synchronous, of all samples.
import { describe, expect, it } from "vitest";
import type { QueryRun } from "@/lib/schemas/runs";
import { run, target, tick } from "../../test/support/fixtures";
import { computeFindings } from "@/lib/model/window/findings";
import { toSettings } from "@/lib/model/window/settings";
import { verdictText } from "@/lib/model/window/verdict";
import { readWaitCell } from "./run-cells";
import { verdictEvidence } from "./runs";

const NOW = 100_000;
const row = (name: string, setting: string, unit: string | null = null) => ({
  name,
  setting,
  unit,
  source: "default",
  pending_restart: false,
  enumvals: null,
  vartype: "string",
});
const settings = toSettings([
  row("io_method", "worker"),
  row("io_workers", "3"),
  row("effective_io_concurrency", "16"),
  row("io_combine_limit", "16", "8kB"),
  row("io_max_combine_limit", "16", "8kB"),
  row("block_size", "8192"),
]);
const recent = Array.from({ length: 50 }, (_, i) => tick(i + 1, NOW - 5000 + i * 100, { workers: { alive: 3, busy: 1 } }));

const base = { id: "42:60000", pid: 42, query: "SELECT * FROM t WHERE id = ANY($1)", startedAt: NOW - 40_000, lastSeen: NOW, samples: 34 };
/** Index lookups: synchronous, one async read waited on among them (the "20 of 34" beside "10 of 34"). */
const syncRun = run({
  ...base,
  verdict: "sync",
  readWaitSamples: 10,
  aioWaitSamples: 1,
  ioWaitSamples: 11,
  cpuSamples: 23,
  syncSamples: 20,
  asyncSamples: 1,
  aioReadSamples: 34,
  aioSamples: 1,
  maxInFlight: 1,
  syncReadBytes: 8192,
});
/** A scan: asynchronous, two synchronous reads waited on beside. */
const asyncRun = run({
  ...base,
  verdict: "async",
  aioWaitSamples: 20,
  readWaitSamples: 2,
  ioWaitSamples: 22,
  cpuSamples: 12,
  asyncSamples: 25,
  syncSamples: 2,
  aioReadSamples: 30,
  aioSamples: 25,
  maxInFlight: 4,
  sumInFlight: 75,
  asyncReadBytes: 126_000,
});

function texts(r: QueryRun) {
  const cell = readWaitCell(r);
  const finding = computeFindings({
    now: NOW,
    target: target({ postmasterStart: NOW - 3_600_000 }),
    settings,
    restarts: [],
    statements: [],
    runs: [r],
    recent,
  }).findings.find((f) => f.runId === r.id)!.text;
  return { cell, row: `${cell.main} ${cell.detail} ${cell.split} ${verdictEvidence(r)}`, finding, verdict: verdictText(r) };
}

/** Every "in N of <samples> samples" figure a text gives. */
const figures = (text: string, samples: number) =>
  [...text.matchAll(new RegExp(`in (\\d+) of ${samples} samples`, "g"))].map((m) => Number(m[1]));

describe("one read share per run: the row, the finding and the verdict", () => {
  it.each([
    ["a synchronous run", syncRun, "waiting on reads in 11 of 34 samples", "32%", "async 1, synchronous 10"],
    ["an asynchronous run", asyncRun, "waiting on reads in 22 of 34 samples", "65%", "async 20, synchronous 2"],
  ] as const)("%s: %s (%s: %s) everywhere", (_, r, share, percent, split) => {
    const t = texts(r);
    expect(t.cell).toMatchObject({ main: percent, detail: share, split });
    // The finding says the row's figure, in the row's words, and the split after it.
    expect(t.finding).toContain(`${share} (${percent}: ${split})`);
    // No other share of the samples anywhere: only the read share and the parts of its split.
    const allowed = [r.aioWaitSamples + r.readWaitSamples, r.aioWaitSamples, r.readWaitSamples];
    for (const text of [t.row, t.finding, t.verdict]) for (const n of figures(text, r.samples)) expect(allowed, text).toContain(n);
    expect(`${t.row} ${t.finding} ${t.verdict}`).not.toMatch(/reading synchronously|in 20 of 34|in 25 of 34/);
  });

  it("the verdict's minority is the split's figure, in the same words in the row, the finding and the verdict", () => {
    const t = texts(syncRun);
    expect(t.verdict).toBe("synchronous; waiting on async reads in 1 of 34 samples");
    expect(t.row).toContain("waiting on async reads in 1 of 34 samples, a minority");
    expect(t.finding).toContain("its reads are synchronous (8 kB a read; waiting on async reads in 1 of 34 samples;");
    const a = texts(asyncRun);
    expect(a.verdict).toBe("asynchronous; waiting on synchronous reads in 2 of 34 samples");
    expect(a.row).toContain("waiting on synchronous reads in 2 of 34 samples");
    // Reads in flight, another quantity, with its own words: the same figure in the row and the finding too.
    expect(a.row).toContain("reads in flight in 25 of 30 samples that read pg_aios");
    expect(a.finding).toContain(
      "its reads are asynchronous (reads in flight in 25 of 30 samples that read pg_aios; waiting on synchronous reads in 2 of 34 samples)",
    );
  });
});
