import "server-only";
import type pg from "pg";
import { explainFigures } from "../../model/lab/explain";
import { scanIo } from "../../model/lab/explain-io";
import { median } from "../../model/lab/summary";
import type { LabLever } from "../../schemas/enums";
import type { LabRun, LabWorkersSeen } from "../../schemas/lab";
import { connectWhenUp, withClient } from "./cluster";
import { inReadOnly, type PreparedLab } from "./statement";

// One round of one value: `concurrency` sessions, each in a connection of
// its own, run the statement at once under EXPLAIN (ANALYZE, BUFFERS); each
// says what SHOW gives for the lever there, and a monitor connection counts
// the io worker rows while they run. The round's figures are the medians of
// the sessions'.

/** How often the io worker rows are counted while the sessions run. */
const WORKERS_EVERY_MS = 100;

export interface RoundOutcome {
  figures: Omit<LabRun, "round" | "method" | "value" | "at">;
  /** each session's EXPLAIN output, as PostgreSQL gave it */
  explains: unknown[];
}

export function explainOptions(prepared: PreparedLab): string {
  return prepared.explainIo ? "ANALYZE, BUFFERS, IO" : "ANALYZE, BUFFERS";
}

/** The sessions of one round; a stop cancels their statements from another connection. */
export async function runRound(
  url: string,
  prepared: PreparedLab,
  lever: LabLever,
  concurrency: number,
  signal: AbortSignal,
): Promise<RoundOutcome> {
  const clients: pg.Client[] = [];
  try {
    for (let i = 0; i < concurrency; i++) clients.push(await connectWhenUp(url));
    const pids = await Promise.all(
      clients.map(async (c) => (await c.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0].pid),
    );
    const cancel = () =>
      void withClient(url, (c) => c.query("SELECT pg_cancel_backend(pid) FROM unnest($1::int[]) AS pid", [pids])).catch(() => undefined);
    signal.addEventListener("abort", cancel, { once: true });
    const watch = watchWorkers(url);
    try {
      // Several scans of one table at once each read it all: no synchronized seq scans riding on another's reads.
      const statement =
        concurrency > 1
          ? { ...prepared.statement, settings: [...prepared.statement.settings, ["synchronize_seqscans", "off"] as const] }
          : prepared.statement;
      const sessions = await Promise.all(
        clients.map((client) =>
          inReadOnly(client, statement, async () => {
            const shown = (await client.query<{ v: string }>("SELECT current_setting($1) AS v", [lever])).rows[0].v;
            const res = await client.query<{ "QUERY PLAN": unknown }>(
              `EXPLAIN (${explainOptions(prepared)}, FORMAT JSON) ${prepared.statement.sql}`,
            );
            return { shown, explain: res.rows[0]["QUERY PLAN"] };
          }),
        ),
      );
      return { figures: roundFigures(sessions, prepared.explainIo, await watch.stop()), explains: sessions.map((s) => s.explain) };
    } finally {
      await watch.stop();
      signal.removeEventListener("abort", cancel);
    }
  } finally {
    await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
  }
}

const medianOrNull = (xs: (number | null)[]) => (xs.every((x) => x !== null) ? median(xs as number[]) : null);

/** The medians of the sessions' figures; one session's are its own. */
function roundFigures(
  sessions: { shown: string; explain: unknown }[],
  explainIo: boolean,
  workers: LabWorkersSeen | null,
): RoundOutcome["figures"] {
  const each = sessions.map((s) => explainFigures(s.explain));
  const shares = each.map((f) => (f.readWaitMs !== null && f.executionMs > 0 ? f.readWaitMs / f.executionMs : null));
  const times = each.map((f) => f.executionMs);
  const mid = median(times);
  // The scan's EXPLAIN (IO) figures: the session nearest the median's.
  const nearest = times.reduce((best, t, i) => (Math.abs(t - mid) < Math.abs(times[best] - mid) ? i : best), 0);
  const shown = [...new Set(sessions.map((s) => s.shown))].join(" / ");
  return {
    executionMs: mid,
    planningMs: median(each.map((f) => f.planningMs)),
    readWaitMs: medianOrNull(each.map((f) => f.readWaitMs)),
    readShare: medianOrNull(shares),
    sharedRead: median(each.map((f) => f.sharedRead)),
    sharedHit: median(each.map((f) => f.sharedHit)),
    io: explainIo ? scanIo(sessions[nearest].explain) : null,
    ...(sessions.length > 1 ? { sessionsMs: times } : {}),
    shown,
    workers,
  };
}

/** Counts pg_stat_activity's io worker rows until stopped: the fewest and most seen. */
function watchWorkers(url: string): { stop(): Promise<LabWorkersSeen | null> } {
  let stopped = false;
  const counts: number[] = [];
  const done = (async () => {
    const client = await connectWhenUp(url).catch(() => null);
    if (!client) return;
    try {
      while (!stopped) {
        const n = (
          await client.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_catalog.pg_stat_activity WHERE backend_type = 'io worker'")
        ).rows[0].n;
        counts.push(n);
        await new Promise((r) => setTimeout(r, WORKERS_EVERY_MS));
      }
    } catch {
      // the count is evidence beside the runs, not a run: a failed read ends it
    } finally {
      await client.end().catch(() => undefined);
    }
  })();
  return {
    async stop() {
      stopped = true;
      await done;
      return counts.length ? { min: Math.min(...counts), max: Math.max(...counts), samples: counts.length } : null;
    },
  };
}
