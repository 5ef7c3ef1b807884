// Issue 41: `npm run lab` compares io_workers and effective_io_concurrency
// on a PostgreSQL 18 the user controls, by ALTER SYSTEM and a reload, never
// a restart: the server's own figures say each value was in force during
// its runs (SHOW in every session; the io worker rows while they ran), its
// start time is the same at the end, the value it started with is back, and
// the result is in the history file the dashboard reads, under the server's
// identity. A bad flag is one line naming it, exit 2. Few rounds: the
// behaviour is under test, not the figures.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LabExport } from "../lib/schemas/lab";
import { labResultsIn } from "./support/demo-lab";
import { startOwnPg, type OwnPg } from "./support/own-pg";
import { startLab } from "./support/lab";
import { waitFor } from "./support/pg";

const DROP = 'for f in {files}; do dd if="$f" iflag=nocache count=0 status=none; done';

describe("npm run lab --lever (own PostgreSQL 18, by reload)", () => {
  let own: OwnPg;
  let url: string;
  let dir: string;
  const historyFile = () => path.join(dir, "history.db");

  async function server(): Promise<{ started: string; ioWorkers: string; eic: string; systemId: string; autoConf: string }> {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      const { rows } = await c.query(
        "SELECT pg_postmaster_start_time()::text AS started, current_setting('io_workers') AS io_workers, current_setting('effective_io_concurrency') AS eic, (SELECT system_identifier::text FROM pg_control_system()) AS system_id",
      );
      return {
        started: rows[0].started,
        ioWorkers: rows[0].io_workers,
        eic: rows[0].eic,
        systemId: rows[0].system_id,
        autoConf: readFileSync(path.join(own.server.dataDir, "postgresql.auto.conf"), "utf8"),
      };
    } finally {
      await c.end();
    }
  }

  const kept = () => labResultsIn(historyFile());

  beforeAll(async () => {
    own = await startOwnPg();
    url = own.server.superuserUrl("postgres");
    dir = mkdtempSync(path.join(os.tmpdir(), "inflight-lab-levers-"));
  });
  afterAll(async () => {
    await own?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it("io_workers 1 vs 3, 4 sessions, 2 rounds: each value in force in every session and in the io worker rows, no restart, 3 back, the result kept", async () => {
    const before = await server();
    expect(before.ioWorkers).toBe("3");
    const lab = startLab(
      [
        "--url",
        url,
        "--seed-mb",
        "64",
        "--lever",
        "io_workers",
        "--values",
        "1,3",
        "--concurrency",
        "4",
        "--rounds",
        "2",
        "--drop-cache",
        DROP,
        "--json",
        `${dir}/workers.json`,
      ],
      { INFLIGHT_HISTORY_FILE: historyFile(), INFLIGHT_HISTORY: "7d" },
    );
    expect(await lab.exited, lab.stderr()).toBe(0);
    expect(lab.stdout()).toMatch(/^io_workers\s+runs\s+median\s+spread \(min–max\)/m);
    expect(lab.stdout()).toMatch(/^1\s+2\s+\S+ (ms|s)/m);
    expect(lab.stdout()).toMatch(
      /^3\s+2\s+\S+ (ms|s) .* (\d+% (faster|slower) than|as fast as) io_workers = 1 \((outside|within) the spread\)$/m,
    );
    expect(lab.stdout()).toMatch(/^sessions: 4 at once; a run's time is the median of theirs$/m);
    expect(lab.stderr()).toMatch(/io_workers is back to 3/);

    const report = LabExport.parse(JSON.parse(readFileSync(`${dir}/workers.json`, "utf8")));
    expect(report.runs.map((r) => `${r.round}:${r.value}`)).toEqual(["1:1", "1:3", "2:3", "2:1"]);
    for (const r of report.runs) {
      // SHOW in each of the 4 sessions, and pg_stat_activity's io worker rows all through the round: the value set.
      expect(r.shown).toBe(r.value);
      expect(r.workers).toMatchObject({ min: Number(r.value), max: Number(r.value) });
      expect(r.sessionsMs).toHaveLength(4);
      expect(r.method).toBe("worker");
      // Read, not all hits; how many each of four sessions on one table reads itself is not promised.
      expect(r.sharedRead).toBeGreaterThan(0);
    }
    expect(report.explains).toHaveLength(16);

    const after = await server();
    expect(after.started).toBe(before.started);
    expect(after.ioWorkers).toBe("3");
    expect(after.autoConf).not.toMatch(/io_workers/);
    const [entry] = kept();
    expect(entry.history).toMatch(new RegExp(`#${before.systemId}$`));
    expect(entry.result).toMatchObject({
      lever: "io_workers",
      concurrency: 4,
      rounds: 2,
      query: "seq",
      ioMethod: "worker",
      serverVersion: expect.stringMatching(/^18\./),
    });
    expect(entry.result.rows.map((r) => [r.value, r.runs])).toEqual([
      ["1", 2],
      ["3", 2],
    ]);
    expect(entry.result.rows.map((r) => r.medianMs)).toEqual(report.summary.map((s) => s.medianMs));
  }, 240_000);

  it("effective_io_concurrency 1 vs 16, one session: SHOW in the session says each, no restart, 16 back, kept beside the first", async () => {
    const before = await server();
    const lab = startLab(
      [
        "--url",
        url,
        "--lever",
        "effective_io_concurrency",
        "--values",
        "1,16",
        "--rounds",
        "2",
        "--drop-cache",
        DROP,
        "--json",
        `${dir}/eic.json`,
      ],
      { INFLIGHT_HISTORY_FILE: historyFile(), INFLIGHT_HISTORY: "7d" },
    );
    expect(await lab.exited, lab.stderr()).toBe(0);
    const report = LabExport.parse(JSON.parse(readFileSync(`${dir}/eic.json`, "utf8")));
    expect(report.runs.map((r) => [r.value, r.shown])).toEqual([
      ["1", "1"],
      ["16", "16"],
      ["16", "16"],
      ["1", "1"],
    ]);
    expect(report.runs.every((r) => r.sessionsMs === undefined)).toBe(true);
    const after = await server();
    expect(after.started).toBe(before.started);
    expect(after.eic).toBe("16");
    expect(after.autoConf).not.toMatch(/effective_io_concurrency/);
    expect(kept().map((k) => [k.result.lever, k.result.concurrency])).toEqual([
      ["io_workers", 4],
      ["effective_io_concurrency", 1],
    ]);
  }, 240_000);

  it("Ctrl-C after a round: io_workers is back before it exits, and the round's result is kept", async () => {
    const before = await server();
    const lab = startLab(["--url", url, "--lever", "io_workers", "--values", "1,3", "--rounds", "20", "--drop-cache", DROP], {
      INFLIGHT_HISTORY_FILE: historyFile(),
      INFLIGHT_HISTORY: "7d",
    });
    await waitFor("a first round", () => /\[lab\] {3}io_workers = 3: /.test(lab.stderr()), 120_000);
    lab.signal("SIGINT");
    expect(await lab.exited).toBe(130);
    expect(lab.stderr()).toMatch(/Ctrl-C: stopping; putting io_workers back first/);
    expect(lab.stderr()).toMatch(/^lab: stopped before the end, after \d+ of 40 runs$/m);
    expect(lab.stderr()).toMatch(/io_workers is back to 3/);
    const after = await server();
    expect(after).toMatchObject({ started: before.started, ioWorkers: "3" });
    expect(after.autoConf).not.toMatch(/io_workers/);
    const last = kept().at(-1)!.result;
    expect(last).toMatchObject({ lever: "io_workers", rounds: 20 });
    expect(last.rows.map((r) => r.value)).toEqual(["1", "3"]);
  }, 240_000);

  it.each([
    [
      ["--lever", "io_max_workers", "--values", "1,4"],
      "lab: --lever: io_max_workers does not exist on PostgreSQL 18 (18 has a fixed number of io workers: compare io_workers)",
    ],
    [
      ["--lever", "io_workers", "--values", "1,40"],
      "lab: --values: io_workers must be a whole number from 1 to 32, not 40 (inflight lab --help)",
    ],
    [["--lever", "io_workers"], "lab: --values: needed with --lever io_workers, e.g. --values 1,3 (inflight lab --help)"],
    [
      ["--lever", "io_workers", "--values", "1,3", "--concurrency", "0"],
      "lab: --concurrency: must be a whole number from 1 to 16 (inflight lab --help)",
    ],
    [
      ["--lever", "shared_buffers", "--values", "1"],
      "lab: --lever: must be one of io_method, io_workers, io_min_workers, io_max_workers, effective_io_concurrency (inflight lab --help)",
    ],
    [["--lever", "io_workers", "--methods", "sync"], "lab: --methods: only for --lever io_method (give --values) (inflight lab --help)"],
    [
      ["--methods", "sync"],
      "lab: --restart: the command that restarts the server is needed (io_method changes only with a restart) (inflight lab --help)",
    ],
  ])("%j: one line naming the flag, exit 2, nothing changed", async (args, line) => {
    const before = await server();
    const lab = startLab(["--url", url, ...args]);
    expect(await lab.exited).toBe(2);
    expect(lab.stderr().trim()).toBe(line);
    expect((await server()).started).toBe(before.started);
  });
});
