// Issue 22: the history on disk, against the real built server and
// the run's PostgreSQL 18 (io_method worker). A cold scan seen live, then
// inflight stopped and started again on the same file: the scan's run, its
// verdict, its reads in flight and its finding come back from /history for
// that range. A range older than the retention says so; a file that refuses
// writes leaves the live page working, and says why.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FleetResponse, TargetsResponse } from "../lib/schemas/api";
import type { Finding, FindingRule } from "../lib/schemas/findings";
import { HistoryResponse } from "../lib/schemas/history";
import { WindowSnapshot } from "../lib/schemas/window";
import { connect, evictFromPageCache, testPg, waitFor } from "./support/pg";
import { startServer, type RunningServer } from "./support/server";
import { openSse } from "./support/sse";
import { backendPid } from "./support/watch";

const PG = testPg();
const DAY = 86_400_000;
// A few seconds on CPU over a cold table: long enough to be sampled with its reads in flight.
const SCAN = `SELECT count(*) FROM ${PG.table} WHERE ${"md5(".repeat(30)}payload${")".repeat(30)} LIKE '%zz%'`;

const env = (file: string) => ({ INFLIGHT_TARGETS: `pg=${PG.monitorUrl}`, INFLIGHT_HISTORY_FILE: file, INFLIGHT_SAMPLE_MS: "50" });
const getJson = async (app: RunningServer, p: string) => (await fetch(`${app.url}${p}`)).json();

type Run = WindowSnapshot["queries"][number];

/** What the page says of a cold scan reading asynchronously. */
const SCAN_RULES: FindingRule[] = ["reads_not_bottleneck", "async_reads"];

/**
 * Runs the scan cold while someone watches until it is seen live with its
 * reads in flight and a finding about it (a sample can miss a short burst
 * of reads: a few tries).
 */
async function scanSeenLive(app: RunningServer, client: pg.Client): Promise<{ finding: Finding; live: Run }> {
  const pid = await backendPid(client);
  const sse = await openSse(`${app.url}/api/targets/pg/stream`);
  try {
    for (let attempt = 0; attempt < 4; attempt++) {
      await evictFromPageCache(client, PG.dataDir, PG.table);
      let running = true;
      const q = client.query(SCAN).finally(() => (running = false));
      let finding: Finding | undefined;
      while (running && !finding) {
        const { findings } = (await getJson(app, "/api/targets/pg/findings")) as { findings: Finding[] };
        finding = findings.find((f) => f.pid === pid && f.runId && SCAN_RULES.includes(f.rule));
        await new Promise((r) => setTimeout(r, 100));
      }
      await q;
      if (!finding) continue;
      const live = await waitFor(
        "the run ended in the window",
        async () =>
          WindowSnapshot.parse(await getJson(app, "/api/targets/pg/window")).queries.find(
            (r) => r.id === finding.runId && r.endedAt !== null,
          ),
        5_000,
      );
      if (live.aioSamples > 0) return { finding, live };
    }
    throw new Error("the scan was never seen live with its reads in flight and a finding about it");
  } finally {
    sse.close();
  }
}

describe("the history on disk (the real server)", () => {
  let dir: string;
  let client: pg.Client;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "inflight-past-"));
    client = await connect(PG.superuserUrl, "history-test");
    await client.query("SET max_parallel_workers_per_gather = 0; SET synchronize_seqscans = off");
  });
  afterAll(async () => {
    await client?.end();
    rmSync(dir, { recursive: true, force: true });
  });

  it("a cold scan seen live is in /history for its range after inflight stops and starts again", async () => {
    const file = path.join(dir, "history.db");
    const from = Date.now();
    const first = await startServer(env(file));
    let seen: Awaited<ReturnType<typeof scanSeenLive>>;
    try {
      seen = await scanSeenLive(first, client);
    } finally {
      await first.stop();
    }
    const { finding, live } = seen;
    const to = Date.now();

    const second = await startServer(env(file));
    try {
      const res = await fetch(`${second.url}/api/targets/pg/history?from=${from}&to=${to}`);
      expect(res.status).toBe(200);
      const past = HistoryResponse.parse(await res.json());
      // The range starts before the first inflight was up: the file says it holds nothing before then.
      expect(past.note).toMatch(/^The file holds nothing before \d\d:\d\d:\d\d/);
      expect(past.status).toEqual({ on: true, reason: null, dropped: 0 });
      const run = past.runs.find((r) => r.id === finding.runId);
      expect(run).toMatchObject({
        query: live.query,
        startedAt: live.startedAt,
        endedAt: live.endedAt,
        verdict: live.verdict,
        aioSamples: live.aioSamples,
        relations: live.relations,
      });
      // Its reads in flight, second by second.
      const during = past.ticks.filter((t) => t.t >= run!.firstSeen && t.t <= run!.lastSeen);
      expect(during.length).toBeGreaterThan(0);
      expect(Math.max(...during.map((t) => t.aio?.inFlight ?? 0))).toBeGreaterThan(0);
      expect(during.some((t) => t.runs.some((s) => s.id === run!.id))).toBe(true);
      // As it held at the recorder's once-a-second look (a finding that flickers off and on starts
      // again). A run's finding keeps its id while its rule follows its samples: async reads, or reads
      // not its bottleneck, as its share of read wait crosses the threshold (under load the recorder's
      // look and this test's poll saw one each).
      const held = past.findings.find((f) => f.id === finding.id);
      expect(held).toMatchObject({ runId: finding.runId, severity: finding.severity });
      expect(SCAN_RULES).toContain(held!.rule);
      expect(held!.from).toBeGreaterThanOrEqual(run!.startedAt);
      expect(held!.to ?? held!.seen).toBeLessThanOrEqual(to);
      // The fleet row names the worst finding of the last hour.
      const fleet = FleetResponse.parse(await getJson(second, "/api/fleet"));
      expect(fleet.targets[0].hourFinding).toMatchObject({ from: expect.any(Number), rule: expect.any(String) });
    } finally {
      await second.stop();
    }
  });

  it("says so for a range older than the retention, and refuses a range that is not one", async () => {
    const app = await startServer(env(path.join(dir, "history.db")));
    try {
      const now = Date.now();
      const old = HistoryResponse.parse(await getJson(app, `/api/targets/pg/history?from=${now - 9 * DAY}&to=${now - 8 * DAY}`));
      expect(old.ticks).toEqual([]);
      expect(old.note).toBe("This range is older than the history keeps (7 d, INFLIGHT_HISTORY): nothing of it is left.");
      const cases: [string, string, string][] = [
        [`from=${now}&to=${now - 1000}`, "to", "to: must be after from"],
        [`from=${now - 2 * DAY}&to=${now}`, "to", "to: spans more than 26 hours: ask for a shorter range"],
        [`from=yesterday&to=${now}`, "from", "from: must be milliseconds since the epoch"],
        [`to=${now}`, "from", expect.stringMatching(/^from: /) as unknown as string],
      ];
      for (const [query, field, message] of cases) {
        const res = await fetch(`${app.url}/api/targets/pg/history?${query}`);
        expect(res.status, query).toBe(400);
        expect((await res.json()).error, query).toEqual({ code: "bad_request", field, message });
      }
    } finally {
      await app.stop();
    }
  });

  it("with a file that refuses writes: the live page works, the target says why, the dropped rows are counted", async () => {
    const file = path.join(dir, "refusing", "history.db");
    // A directory where the samples file should be.
    mkdirSync(path.join(dir, "refusing", "history-samples.db"), { recursive: true });
    const app = await startServer(env(file));
    try {
      const sse = await openSse(`${app.url}/api/targets/pg/stream`);
      try {
        await sse.waitFor((e) => e.event === "tick", 20_000);
      } finally {
        sse.close();
      }
      const target = await waitFor(
        "the target up, saying why nothing is kept, rows counted",
        async () => {
          const t = TargetsResponse.parse(await getJson(app, "/api/targets")).targets[0];
          return t.status === "up" && (t.history?.dropped ?? 0) > 0 && t;
        },
        20_000,
      );
      expect(target.history).toMatchObject({ on: false, reason: expect.stringContaining("history-samples.db cannot be written") });
      expect(
        app
          .output()
          .split("\n")
          .filter((l) => l.includes("samples not kept")),
      ).toHaveLength(1);
      const res = await fetch(`${app.url}/api/targets/pg/history?from=${Date.now() - 60_000}&to=${Date.now()}`);
      expect(res.status).toBe(503);
      expect((await res.json()).error.message).toMatch(/^the history is not kept: .*history-samples\.db cannot be written/);
      const metrics = await (await fetch(`${app.url}/metrics`)).text();
      expect(Number(/^inflight_history_rows_dropped_total\{target="pg"\} (\d+)/m.exec(metrics)?.[1])).toBeGreaterThan(0);
      expect(WindowSnapshot.safeParse(await getJson(app, "/api/targets/pg/window")).success).toBe(true);
    } finally {
      await app.stop();
    }
  });
});
