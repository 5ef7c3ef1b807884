// Runs the polls miss, found in pg_wait_sampling's profile (issue 44), on
// Debian's PostgreSQL 18 with the extension (bench/lib/pgws-target.ts): with
// it, the shipped cadence (polls every 250 ms, the shipped budget) and cold
// scans shorter than that, every scan the test ran (its own list, its own
// clock: bench/lib/scans.ts) has a run, with the verdict the polls give the
// scans they see, placed where the scan ran; without it (the profile
// denied), the polls every 100 ms as before and no run from the profile.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { QueryRun } from "../../schemas/runs";
import { Collector } from "./collector";
import { DEFAULT_WATCHED_SAMPLE_MS, WAIT_SAMPLING_WATCHED_MS } from "./options";
import { waitFor, TEST_CADENCES } from "../../../test/support/pg";
import { ioUringAvailable } from "../../../test/support/iouring";
import { startPgwsTarget, type PgwsTarget } from "../../../bench/lib/pgws-target";
import { ScanDriver, type ScanRecord } from "../../../bench/lib/scans";
import { runsOfScans } from "../../../bench/lib/scan-runs";

const io = await ioUringAvailable();
if (!io.ok) console.log(`[wait sampling runs] not run, as asked: ${io.why}`);

const MONITOR = "pgws_runs_monitor";
const DENIED = "pgws_runs_denied";
/** About 96 MB each: a cold scan of 150-300 ms here (97 ms median at 220,000 rows on a quiet machine left too few over 120 ms), about the 250 ms between two polls. */
const ROWS = 400_000;
/** Runs found in the profile appear one read (about a second) after the read they rose in. */
const SETTLE_MS = 3500;
const COPY = "public.pgws_scan_copy";
/** A run the profile found, placed where its session ended it, is this close to the scan's start and end by the test's clock (the round trip, a few ms here). */
const PLACED_MS = 50;

describe.skipIf(!io.ok)("runs of scans shorter than the polls' interval, from pg_wait_sampling (Debian's PostgreSQL 18)", () => {
  let tgt: PgwsTarget;

  beforeAll(async () => {
    tgt = await startPgwsTarget({ rows: ROWS, granted: [MONITOR], denied: [DENIED], log: (l) => console.log(`[pgws runs] ${l}`) });
    // A copy of the same size, scanned in turn with it: two statements of one query between the same two
    // reads of the profile would be one run (missed-runs.ts), and the bench's scans alternate tables too.
    await tgt.admin.query(`CREATE TABLE ${COPY} AS SELECT * FROM ${tgt.tables[0]}`);
    await tgt.admin.query(`VACUUM ANALYZE ${COPY}`);
  }, 600_000);

  afterAll(async () => {
    await tgt?.admin.end().catch(() => undefined);
    await tgt?.server.stop();
  });

  /** `body` with a collector as shipped (no INFLIGHT_SAMPLE_MS unless given, the shipped budget), watched. */
  async function watching(role: string, watchedSampleMs: number | undefined, body: (collector: Collector) => Promise<void>): Promise<void> {
    const collector = new Collector({
      id: role,
      name: role,
      demo: false,
      watchedSampleMs,
      idleSampleMs: 1000,
      windowMs: 10 * 60_000,
      cadences: TEST_CADENCES,
    });
    const unsubscribe = collector.feed.subscribe(() => undefined);
    collector.start(tgt.urlFor(role));
    try {
      await body(collector);
    } finally {
      unsubscribe();
      await collector.stop();
    }
  }

  /** Up and sampling, its wait events from `source`. */
  const upOn = (collector: Collector, source: "pg_wait_sampling" | "pg_stat_activity") =>
    waitFor(
      `up, on ${source}`,
      () => {
        const i = collector.info();
        return i.status === "up" && i.waitSampler?.source === source && i.samples > 3 ? i : undefined;
      },
      20_000,
    );

  /**
   * Cold scans of the two tables in turn, 300-900 ms apart, `batch` at a time, each batch followed by the
   * profile's read past its last, until `enough` says so of all scanned so far (or `most` scans).
   */
  async function scans(
    batch: number,
    most: number,
    label: string,
    enough: (list: ScanRecord[]) => boolean = () => true,
  ): Promise<ScanRecord[]> {
    const driver = new ScanDriver(tgt.server.superuserUrl(), tgt.server.dataDir, [tgt.tables[0], COPY], label);
    await driver.open();
    try {
      do {
        await driver.start(batch);
        await new Promise((r) => setTimeout(r, SETTLE_MS));
      } while (!enough(driver.scans) && driver.scans.length < most);
    } finally {
      await driver.close();
    }
    expect(driver.errors).toEqual([]);
    return driver.scans;
  }

  const describeScans = (list: ScanRecord[], found: Map<number, QueryRun>) =>
    list
      .map((s) => {
        const r = found.get(s.n);
        return `${s.ms.toFixed(0)}ms:${r ? `${r.seenBy ? "pgws" : "poll"}/${r.verdict}/${r.samples}` : "none"}`;
      })
      .join(" ");

  it("with the extension, polls every 250 ms, and every short cold scan has a run: those no poll saw from its profile, with the verdict the polls give", async () => {
    await watching(MONITOR, undefined, async (collector) => {
      const info = await upOn(collector, "pg_wait_sampling");
      expect(info.sampleMs).toBe(WAIT_SAMPLING_WATCHED_MS);
      // Whether a poll lands in a scan of L ms is chance (1 - L/250 that none does), so the test scans until the
      // profile has given a few runs the polls missed, bounded: 24 scans at least, 72 at most.
      const fromProfile = (list: ScanRecord[]) => [...runsOfScans(list, collector.window.queries()).values()].filter((r) => r.seenBy);
      const list = await scans(12, 72, "pgws-runs", (l) => l.length >= 24 && fromProfile(l).length >= 3);
      const runs = collector.window.queries();
      const found = runsOfScans(list, runs);
      const missed = [...found.values()].filter((r) => r.seenBy === "pg_wait_sampling");
      const polled = [...found.values()].filter((r) => !r.seenBy);
      console.log(
        `[pgws runs] ${list.length} scans (median ${[...list].sort((a, b) => a.ms - b.ms)[list.length >> 1].ms.toFixed(0)} ms), runs of ${found.size}: ${polled.length} from the polls, ${missed.length} from the profile; sampled every ${collector.info().sampleMs} ms; ${describeScans(list, found)}`,
      );
      // Every scan the test ran has a run (one of 100 ms or more by the extension's samples: shorter ones are no run).
      const long = list.filter((s) => s.ms >= 120);
      expect(long.length).toBeGreaterThanOrEqual(list.length / 2);
      expect(long.filter((s) => !found.has(s.n)).map((s) => `${s.n}: ${s.ms.toFixed(0)} ms`)).toEqual([]);
      // The profile gave runs the polls missed where the scans were short enough for the polls to miss many
      // (under 200 ms each is missed one time in five or more: none in 24 is under 0.5%).
      if (list.filter((s) => s.ms < 200).length >= 24) expect(missed.length).toBeGreaterThanOrEqual(1);
      // The polls' verdicts on these cold scans under io_method = worker: the profile's runs say the same.
      const kinds = new Set(polled.map((r) => r.verdict));
      expect(kinds.has("sync")).toBe(false);
      // Nor does a run the polls missed (it counts its samples on CPU as reading in the share the polls saw in
      // flight in the last run of its query). Which of async and cpu a scan of 100-250 ms gets is the page
      // cache's and the machine's (a poll-seen run of the same scan is either), so that is not asked run by run:
      // most of the profile's runs after a polled one take a verdict the polls gave.
      expect(missed.filter((r) => r.verdict === "sync").map((r) => r.id)).toEqual([]);
      const afterPolled = missed.filter((m) => polled.some((p) => p.queryId === m.queryId && p.endedAt! < m.startedAt));
      const agreeing = afterPolled.filter((r) => kinds.has(r.verdict));
      expect(agreeing.length, afterPolled.map((r) => `${r.verdict} among ${[...kinds]}`).join(", ")).toBeGreaterThanOrEqual(
        afterPolled.length / 2,
      );
      // Where the polls saw the session end the statement (all but a session's first the profile finds, which may
      // come before the session is watched), the run starts and ends where the scan did by the test's clock.
      const placed = [...found].filter(([, r]) => r.seenBy).map(([n, r]) => ({ scan: list[n - 1], r }));
      const off = placed.filter(
        ({ scan, r }) => Math.abs(r.startedAt - scan.start) > PLACED_MS || Math.abs(r.endedAt! - scan.end) > PLACED_MS,
      );
      expect(off.length, off.map(({ scan, r }) => `${scan.n}: ${r.startedAt - scan.start} ms`).join(", ")).toBeLessThanOrEqual(1);
      for (const r of missed) {
        expect(r.samples).toBeGreaterThanOrEqual(10);
        expect(r.query).toMatch(/FROM public\.pgws_scan(_copy)? WHERE/);
      }
      // Other runs from the profile are the workload's (the scanner's CHECKPOINT), never inflight's own statements.
      expect(runs.filter((r) => r.seenBy && r.query.includes("inflight:")).map((r) => r.query)).toEqual([]);
    });
  }, 180_000);

  it("with INFLIGHT_SAMPLE_MS given, polls at that interval with the extension too", async () => {
    await watching(MONITOR, 100, async (collector) => expect((await upOn(collector, "pg_wait_sampling")).sampleMs).toBe(100));
  });

  it("without it (the profile denied), polls every 100 ms as before and finds no run in the profile", async () => {
    await watching(DENIED, undefined, async (collector) => {
      const info = await upOn(collector, "pg_stat_activity");
      expect(info.sampleMs).toBe(DEFAULT_WATCHED_SAMPLE_MS);
      const list = await scans(8, 8, "pgws-runs-denied");
      const found = runsOfScans(list, collector.window.queries());
      console.log(`[pgws runs] denied: ${list.length} scans, runs of ${found.size}; ${describeScans(list, found)}`);
      expect(collector.window.queries().filter((r) => r.seenBy)).toEqual([]);
      expect(collector.info().sampleMs).toBe(DEFAULT_WATCHED_SAMPLE_MS);
    });
  }, 120_000);
});
