// Helpers for tests against the run's real PostgreSQL 18.
import { monitorEventLoopDelay } from "node:perf_hooks";
import pg from "pg";
import { inject } from "vitest";

export { evictFromPageCache } from "./evict";

export function testPg() {
  return inject("pg");
}

export async function connect(url: string, applicationName = "inflight-test"): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, application_name: applicationName });
  await client.connect();
  return client;
}

/** The most this process's event loop has been held up since the call, in ms: what a bound on
 * wall time must allow on a loaded machine, measured instead of guessed. */
export function loopLag(): () => number {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  return () => delay.max / 1e6;
}

export async function waitFor<T>(
  what: string,
  probe: () => T | null | undefined | false | Promise<T | null | undefined | false>,
  timeoutMs = 10_000,
  everyMs = 50,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** The shared_buffers of the server, in bytes, and a relation's size. */
export async function sizes(client: pg.Client, table: string): Promise<{ sharedBuffers: number; table: number }> {
  const { rows } = await client.query<{ sb: string; t: string }>(
    `SELECT /* test support */ (SELECT setting::bigint * 8192 FROM pg_settings WHERE name = 'shared_buffers') AS sb, pg_relation_size($1::regclass) AS t`,
    [table],
  );
  return { sharedBuffers: Number(rows[0].sb), table: Number(rows[0].t) };
}

/** Calls so far of one of inflight's statements (its text carries its file name in the inflight marker), every database and role. */
export async function ownStatementCalls(admin: pg.Client, file: string): Promise<number> {
  const { rows } = await admin.query<{ calls: string | null }>(
    "SELECT sum(calls)::text AS calls FROM pg_stat_statements WHERE query LIKE $1",
    [`%/* inflight:${file} */%`],
  );
  return Number(rows[0].calls ?? 0);
}

/** Periodic reads sooner than in production (settings every 30 s, pg_stat_statements every 10 s), so tests wait seconds, not half minutes. */
export const TEST_CADENCES = { settingsMs: 5000, statStatementsMs: 2000 } as const;

/**
 * Collector options for tests of what is seen rather than of what it costs:
 * cadences as above and a budget that never spaces pg_aios out at the fast
 * cadences they sample at (the budget's own tests use the default).
 */
export const TEST_COLLECTOR = { cadences: TEST_CADENCES, budgetMsPerSecond: 100 } as const;
