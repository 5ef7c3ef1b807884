// What the history on disk costs (issue 22; BENCHMARKS.md, not part
// of `npm run bench`): the built server watches the run's PostgreSQL 18 at
// the fast cadence (a viewer throughout) during cold sequential scans and a
// stream of short statements, once with the picture kept and once with
// INFLIGHT_HISTORY=off; then the file's bytes per hour, the server's CPU in
// each, and how long a day's range and an hour's take to open (the
// measured seconds repeated over 24 h in a copy of the file). PAST_SIZE_MS
// sets each phase (default 45 s). Only what does not depend on the machine is asserted. A
// measurement, not a check of the feature (test/past.int.test.ts is): it
// runs when PAST_SIZE_MS is set, as BENCHMARKS.md's command does, and not in
// `npm test`, which must stay well under 15 minutes.
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cpuSeconds } from "../bench/lib/proc";
import { ScanDriver } from "../bench/lib/scans";
import { HistoryResponse, type HistoryTick } from "../lib/schemas/history";
import { openSamples, pack, unpack } from "../lib/server/history/samples-db.mjs";
import { testPg } from "./support/pg";
import { startServer, type RunningServer } from "./support/server";
import { openSse } from "./support/sse";

const PG = testPg();
const PHASE_MS = Number(process.env.PAST_SIZE_MS ?? 45_000);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Watches for PHASE_MS with a viewer, while the scans and short statements run; the server's CPU, share of one core. */
async function watchBusy(app: RunningServer): Promise<number> {
  const sse = await openSse(`${app.url}/api/targets/pg/stream`);
  const cpu0 = cpuSeconds(app.pid)!;
  const t0 = Date.now();
  await new Promise((r) => setTimeout(r, PHASE_MS));
  const share = (cpuSeconds(app.pid)! - cpu0) / ((Date.now() - t0) / 1000);
  sse.close();
  return share;
}

describe.skipIf(!process.env.PAST_SIZE_MS)("the history's size and cost (a busy target, fast cadence)", () => {
  let dir: string;
  let scans: ScanDriver;
  let short: pg.Client;
  let stopShort = false;
  let shortLoop: Promise<void>;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "inflight-past-size-"));
    scans = new ScanDriver(PG.superuserUrl, PG.dataDir, [PG.table], "history-size", [200, 600]);
    await scans.open();
    void scans.start();
    short = new pg.Client({ connectionString: PG.superuserUrl, application_name: "history-size-short" });
    await short.connect();
    // Short statements, each a run when a sample sees it: the rows a busy OLTP target adds.
    shortLoop = (async () => {
      while (!stopShort)
        await short.query(`SELECT count(*), pg_sleep(0.05) FROM ${PG.table} WHERE id = $1`, [Math.floor(Math.random() * 500_000) + 1]);
    })();
  });
  afterAll(async () => {
    stopShort = true;
    await shortLoop?.catch(() => undefined);
    await short?.end();
    await scans?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    "measures MB an hour, CPU with and without it, and a day's range opened",
    async () => {
      const file = path.join(dir, "history.db");
      const samplesFile = path.join(dir, "history-samples.db");
      const kept = await startServer({ INFLIGHT_TARGETS: `pg=${PG.monitorUrl}`, INFLIGHT_HISTORY_FILE: file });
      const from = Date.now();
      const cpuKept = await watchBusy(kept).finally(() => kept.stop());
      const spanMs = Date.now() - from;
      const off = await startServer({ INFLIGHT_TARGETS: `pg=${PG.monitorUrl}`, INFLIGHT_HISTORY: "off" });
      const cpuOff = await watchBusy(off).finally(() => off.stop());

      const fileBytes = (d: Database.Database) =>
        (d.pragma("page_count", { simple: true }) as number) * (d.pragma("page_size", { simple: true }) as number);
      // What the rows take: the file less an empty one's tables and indexes.
      const empty = openSamples(path.join(dir, "empty-samples.db"), 500);
      const emptyBytes = fileBytes(empty);
      empty.close();
      const db = new Database(samplesFile);
      const bytes = fileBytes(db) - emptyBytes;
      const stored = (table: string) => db.prepare(`SELECT data FROM ${table}`).pluck().all() as Buffer[];
      const tickBatches = stored("sample_ticks");
      const runBatches = stored("sample_runs");
      const ticks = tickBatches.flatMap((b) => unpack<HistoryTick>(b));
      const rows = {
        ticks: ticks.length,
        runs: runBatches.reduce((n, b) => n + unpack(b).length, 0),
        findings: db.prepare("SELECT count(*) FROM sample_findings").pluck().get() as number,
      };
      const packed = (batches: Buffer[], n: number) => Math.round(batches.reduce((sum, b) => sum + b.length, 0) / Math.max(1, n));
      const perTick = packed(tickBatches, rows.ticks);
      const perRun = packed(runBatches, rows.runs);
      db.close();
      expect(rows.ticks).toBeGreaterThan(PHASE_MS / 1000 / 2);
      expect(rows.runs).toBeGreaterThan(0);

      // A day of the same: the measured seconds repeated over 24 h before now, in a copy, 5 s a batch as the store writes them.
      const dayFile = path.join(dir, "day.db");
      copyFileSync(samplesFile, path.join(dir, "day-samples.db"));
      const day = new Database(path.join(dir, "day-samples.db"));
      // Under the key the store used (the history of the server the target was connected to).
      const { target: key } = day.prepare("SELECT target FROM sample_ticks LIMIT 1").get() as { target: string };
      const insert = day.prepare("INSERT INTO sample_ticks (target, t_from, t_to, data) VALUES (?, ?, ?, ?)");
      const now = Date.now();
      day.transaction(() => {
        for (let s = 0; s < DAY / 1000; s += 5) {
          const batch = [0, 1, 2, 3, 4].map((i) => ({ ...ticks[(s + i) % ticks.length], t: now - DAY + (s + i) * 1000 }));
          insert.run(key, batch[0].t, batch[4].t, pack(batch));
        }
      })();
      const dayBytes = fileBytes(day);
      day.close();
      const reader = await startServer({ INFLIGHT_TARGETS: `pg=${PG.monitorUrl}`, INFLIGHT_HISTORY_FILE: dayFile });
      /** `/history` for the span before now: how long it took, its JSON's size, its ticks. */
      const opened = async (span: number) => {
        const t0 = Date.now();
        const res = await fetch(`${reader.url}/api/targets/pg/history?from=${now - span}&to=${now}`);
        const text = await res.text();
        const ms = Date.now() - t0;
        expect(res.status).toBe(200);
        return { ms, body: text.length, ticks: HistoryResponse.parse(JSON.parse(text)).ticks.length };
      };
      let dayMs: number;
      let dayBody: number;
      let hourMs: number;
      try {
        const dayRange = await opened(DAY);
        expect(dayRange.ticks).toBeGreaterThanOrEqual(DAY / 1000 - 5);
        ({ ms: dayMs, body: dayBody } = dayRange);
        const hourRange = await opened(HOUR);
        expect(hourRange.ticks).toBeGreaterThanOrEqual(HOUR / 1000 - 5);
        hourMs = hourRange.ms;
      } finally {
        await reader.stop();
      }

      const mbPerHour = (bytes / 1024 / 1024) * (HOUR / spanMs);
      console.log(
        JSON.stringify({
          phaseS: Math.round(spanMs / 1000),
          rows,
          rowsPerHour: Math.round((rows.ticks + rows.runs + rows.findings) * (HOUR / spanMs)),
          packedBytesPerTick: perTick,
          packedBytesPerRun: perRun,
          mbPerHour: Number(mbPerHour.toFixed(1)),
          netKb: Math.round(bytes / 1024),
          daysIn256Mb: Number((256 / mbPerHour / 24).toFixed(1)),
          cpuKept: Number(cpuKept.toFixed(3)),
          cpuOff: Number(cpuOff.toFixed(3)),
          scans: scans.scans.length,
          dayFileMb: Number((dayBytes / 1024 / 1024).toFixed(1)),
          dayOpenMs: dayMs,
          dayBodyMb: Number((dayBody / 1024 / 1024).toFixed(1)),
          hourOpenMs: hourMs,
        }),
      );
    },
    4 * PHASE_MS + 120_000,
  );
});
