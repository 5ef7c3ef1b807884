// The findings at the shipped defaults: the other integration tests sample
// every 20-100 ms at a 100 ms/s budget (TEST_COLLECTOR) so that they see
// much; users run INFLIGHT_SAMPLE_MS 100 and INFLIGHT_BUDGET 5, with
// settings read every 30 s and pg_stat_statements every 10 s. Here a
// collector made from the configuration with no settings at all (as
// lib/server/boot/boot.ts makes one) watches a cold scan on the shared
// PostgreSQL 18, and the page's lead finding about it must come out with
// its figures.
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Finding } from "../../schemas/findings";
import { parseConfig } from "../config/config";
import { connect, evictFromPageCache, testPg, waitFor } from "../../../test/support/pg";
import { backendPid } from "../../../test/support/watch";
import { Collector, DEFAULT_BUDGET_MS } from "./collector";

const PG = testPg();
/** Thirty md5 a row: a few seconds, long enough to be judged (a run under a second is "too short"). */
const SQL = `SELECT count(*) FROM ${PG.table} WHERE ${"md5(".repeat(30)}payload${")".repeat(30)} LIKE '%zz%'`;

describe("at the shipped defaults (INFLIGHT_SAMPLE_MS 100, INFLIGHT_BUDGET 5)", () => {
  const config = parseConfig({}, process.cwd());
  let collector: Collector;
  let unsubscribe: () => void;
  let client: pg.Client;
  let admin: pg.Client;

  beforeAll(async () => {
    collector = new Collector({
      id: "defaults",
      name: "defaults",
      demo: false,
      watchedSampleMs: config.watchedSampleMs,
      idleSampleMs: config.idleSampleMs,
      windowMs: config.windowMs,
      budgetMsPerSecond: config.budgetMsPerSecond,
    });
    // One viewer: the fast cadence, as with the page open.
    unsubscribe = collector.feed.subscribe(() => undefined);
    collector.start(PG.monitorUrl);
    await waitFor("collector up", () => collector.info().status === "up" && collector.window.allTicks().length > 3, 15_000);
    client = await connect(PG.superuserUrl, "defaults-scan");
    admin = await connect(PG.superuserUrl, "defaults-admin");
    await client.query("SET max_parallel_workers_per_gather = 0; SET synchronize_seqscans = off");
  });
  afterAll(async () => {
    await client?.end();
    await admin?.end();
    unsubscribe?.();
    await collector?.stop();
  });

  it("are the shipped ones", () => {
    expect(config.watchedSampleMs).toBe(100);
    expect(config.budgetMsPerSecond).toBe(DEFAULT_BUDGET_MS);
    expect(collector.budget.msPerSecond).toBe(5);
    expect(collector.intervalMs).toBe(100);
  });

  it("a cold scan: its finding while it runs, with the table, progress, read rate and read wait", async () => {
    const pid = await backendPid(client);
    // A run judged from its samples and reads: progress and a read rate need pg_aios read in
    // flight twice, which the budget may space out to its floor (one read every 10 s) on a
    // loaded machine; the cold scan is repeated until one is (bounded), and stopped once it is.
    const figure = (f: Finding, name: string) => (typeof f.evidence[name] === "number" ? (f.evidence[name] as number) : null);
    const judged = (f: Finding) =>
      f.pid === pid && f.rule !== "too_short" && (figure(f, "progress") ?? 0) > 0 && (figure(f, "readBytesPerSec") ?? 0) > 0;
    let found: Finding | undefined;
    const rules: string[] = [];
    const runs: string[] = [];
    const until = Date.now() + 90_000;
    while (!found && Date.now() < until) {
      await evictFromPageCache(client, PG.dataDir, PG.table);
      let running = true;
      const began = Date.now();
      const scan = client.query(SQL).then(
        () => "ended",
        (err: Error) => (/canceling statement/.test(err.message) ? "cancelled" : Promise.reject(err)),
      );
      void scan.finally(() => (running = false));
      while (running && !found && Date.now() < until) {
        const findings = collector.window.findings.findings;
        for (const f of findings) if (f.pid === pid && !rules.includes(f.rule)) rules.push(f.rule);
        found = findings.find(judged);
        await new Promise((r) => setTimeout(r, 50));
      }
      if (running) await admin.query("SELECT pg_cancel_backend($1)", [pid]);
      runs.push(`${await scan} after ${Date.now() - began} ms`);
    }
    console.log(`[defaults] scans: ${runs.join("; ")}; ${collector.info().cost.note ?? "no cost note"}`);
    const costs = () =>
      collector
        .info()
        .cost.statements.map((s) => `${s.statement} ${s.msPerCall} ms x ${s.callsPerSecond}/s`)
        .join(", ");
    if (!found)
      throw new Error(
        `no finding with figures about the scan (pid ${pid}) in 90 s of cold scans at the defaults (${runs.join("; ")}); rules seen about it: ${rules.join(", ") || "none"}; costs: ${costs()}`,
      );
    expect(["async_reads", "reads_not_bottleneck", "sync_reads", "small_reads", "readahead_depth", "workers_queue"]).toContain(found.rule);
    expect(found.text).toMatch(
      new RegExp(
        `^(Longest left|Running): pid ${pid} \`SELECT count\\(\\*\\) FROM ${PG.table.replace(".", "\\.")}.* on ${PG.table.replace(".", "\\.")}, `,
      ),
    );
    expect(found.runId).toMatch(new RegExp(`^${pid}:`));
    const samples = figure(found, "samples");
    expect(samples).toBeGreaterThan(0);
    expect(figure(found, "elapsedMs")).toBeGreaterThan(0);
    expect(figure(found, "progress")).toBeLessThanOrEqual(1);
    expect(figure(found, "readWait")).toBeGreaterThanOrEqual(0);
    expect(figure(found, "readWait")).toBeLessThanOrEqual(1);
    // The run it quotes is the window's run of that scan, with the same samples or more since.
    const run = collector.window.run(found.runId!);
    expect(run?.pid).toBe(pid);
    expect(run!.samples).toBeGreaterThanOrEqual(samples!);
  });
});
