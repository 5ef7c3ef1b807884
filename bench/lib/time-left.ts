// Time left held against real ends: cold sequential scans run on purpose
// (alone, or several at once), each scan's run looked at every ~200 ms
// while it runs, and each look from a quarter of the scan on judged by the
// scan's end as this process's clock saw it (its client's query returned),
// never by the product's figures for itself. Shared by the integration test
// (lib/server/collector/time-left.int.test.ts) and the bench's figure 11.
import pg from "pg";
import type { QueryRun } from "@/lib/schemas/runs";
import { evictFromPageCache } from "@/test/support/evict";
import { quantile, sleep } from "./stats";

/** What one look at a running scan's run showed, at this process's time `at` (ms). */
export interface ScanLook {
  at: number;
  etaMs: number | null;
  range: [number, number] | null;
  progress: number | null;
  /** the product's time of the sample the run's view was built at, and the blocks of the relation its progress is of */
  sampledAt: number | null;
  blocks: number | null;
}

/** One scan: its start and end by this process's clock, and the looks taken meanwhile. */
export interface ScanSeen {
  pid: number;
  start: number;
  end: number;
  looks: ScanLook[];
}

export interface TimeLeftRig {
  /** a session that scans with one backend, not synchronized with others (set up by the caller) */
  connect: () => Promise<pg.Client>;
  /** drops the scanned table from the OS page cache */
  evict: () => Promise<void>;
  /** the run of `pid` begun at or after `from`, as the product shows it now */
  look: (pid: number, from: number) => QueryRun | undefined | Promise<QueryRun | undefined>;
  /** the scan: a cold sequential scan long enough for several seconds of looks */
  sql: string;
}

/**
 * A cold scan of `table` with `md5s` md5 a row: a CPU-heavy filter that
 * matches nothing (the payload is hex), so a scan of a table of ~100 MB
 * lasts seconds, long enough to be looked at many times.
 */
export function timeLeftScanSql(table: string, md5s: number): string {
  return `SELECT count(*) FROM ${table} WHERE ${"md5(".repeat(md5s)}payload${")".repeat(md5s)} LIKE '%zz%'`;
}

/**
 * The rig both the test and the bench use: sessions that scan with one
 * backend each, not synchronized with each other, and a table made cold
 * before each round: out of the OS page cache and out of shared buffers
 * (where part of a table stays from its seeding, and is scanned with no read
 * to see). `superuserUrl`: for pg_buffercache and CHECKPOINT.
 */
export function coldScanRig(opts: {
  superuserUrl: string;
  dataDir: string;
  table: string;
  sql: string;
  look: TimeLeftRig["look"];
}): TimeLeftRig {
  return {
    async connect() {
      const client = new pg.Client({ connectionString: opts.superuserUrl, application_name: "time-left-scan" });
      await client.connect();
      await client.query("SET max_parallel_workers_per_gather = 0; SET synchronize_seqscans = off");
      return client;
    },
    async evict() {
      const admin = new pg.Client({ connectionString: opts.superuserUrl, application_name: "time-left-admin" });
      await admin.connect();
      try {
        await admin.query("CREATE EXTENSION IF NOT EXISTS pg_buffercache");
        await evictFromPageCache(admin, opts.dataDir, opts.table);
        await admin.query("SELECT pg_buffercache_evict_relation($1::regclass)", [opts.table]);
      } finally {
        await admin.end();
      }
    },
    look: opts.look,
    sql: opts.sql,
  };
}

/** Looks taken this far apart (the page shows a run's row at about this rate). */
export const LOOK_EVERY_MS = 200;
/** Looks are judged from this share of each scan on (by this process's clock). */
export const JUDGED_FROM = 0.25;

async function pidOf(client: pg.Client): Promise<number> {
  return (await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0].pid;
}

/** Runs `sql` once on each client at the same time, cold, looking at each scan's run every LOOK_EVERY_MS until it ends. */
export async function scansLookedAt(rig: TimeLeftRig, clients: pg.Client[]): Promise<ScanSeen[]> {
  const pids = await Promise.all(clients.map(pidOf));
  await rig.evict();
  const seen: ScanSeen[] = pids.map((pid) => ({ pid, start: 0, end: 0, looks: [] }));
  const running = new Set<number>();
  const done = clients.map((client, i) => {
    seen[i].start = Date.now();
    running.add(i);
    return client.query(rig.sql).then(
      () => {
        seen[i].end = Date.now();
        running.delete(i);
      },
      (err: Error) => {
        running.delete(i);
        throw err;
      },
    );
  });
  const all = Promise.all(done);
  all.catch(() => undefined);
  while (running.size > 0) {
    const next = Date.now() + LOOK_EVERY_MS;
    for (const i of [...running]) {
      const run = await rig.look(seen[i].pid, seen[i].start);
      // A look after the query returned is not one a user could have taken while it ran.
      if (!running.has(i)) continue;
      seen[i].looks.push({
        at: Date.now(),
        etaMs: run?.etaMs ?? null,
        range: run?.etaRangeMs ? [run.etaRangeMs[0], run.etaRangeMs[1]] : null,
        progress: run?.progress ?? null,
        sampledAt: run?.lastSeen ?? null,
        blocks: run?.relations.find((r) => r.name === run.progressRelation)?.blocks ?? null,
      });
    }
    await sleep(Math.max(0, next - Date.now()));
  }
  await all;
  return seen;
}

export interface TimeLeftJudged {
  scans: number;
  /** looks from a quarter of each scan on */
  looks: number;
  /** of them, looks with no range yet (counted as misses, and as an infinite error) */
  noRange: number;
  /** share of those looks whose range held the real end */
  heldShare: number | null;
  /** median of |middle - real time left| / real time left over those looks */
  medianError: number | null;
  /** the scans' median length (ms), by this process's clock */
  medianScanMs: number | null;
}

/** Each look from JUDGED_FROM of its scan on, against the scan's real end. */
export function judgeLooks(seen: readonly ScanSeen[]): TimeLeftJudged {
  let held = 0;
  let noRange = 0;
  const errors: number[] = [];
  for (const scan of seen) {
    const from = scan.start + JUDGED_FROM * (scan.end - scan.start);
    for (const look of scan.looks) {
      if (look.at < from || look.at >= scan.end) continue;
      const left = scan.end - look.at;
      if (!look.range || look.etaMs === null) {
        noRange++;
        errors.push(Infinity);
        continue;
      }
      if (left >= look.range[0] && left <= look.range[1]) held++;
      errors.push(Math.abs(look.etaMs - left) / left);
    }
  }
  const looks = errors.length;
  return {
    scans: seen.length,
    looks,
    noRange,
    heldShare: looks ? held / looks : null,
    medianError: quantile(errors, 0.5),
    medianScanMs: quantile(
      seen.map((s) => s.end - s.start),
      0.5,
    ),
  };
}

export interface TimeLeftPlan {
  /** scans run one at a time */
  alone: number;
  /** rounds of `together` scans started at once */
  rounds: number;
  together: number;
  /** Scans added (up to twice the plan) while fewer looks than this can be judged: a quicker run's scans give fewer. */
  minLooks?: number;
}

export interface TimeLeftFigure {
  alone: TimeLeftJudged;
  together: TimeLeftJudged;
  /** every scan seen, for a figure that misses to be read look by look */
  seen: { alone: ScanSeen[]; together: ScanSeen[] };
}

/** The whole measure: `plan.alone` scans alone, then `plan.rounds` rounds of `plan.together` at once. */
export async function measureTimeLeft(rig: TimeLeftRig, plan: TimeLeftPlan): Promise<TimeLeftFigure> {
  const clients = await Promise.all(Array.from({ length: Math.max(1, plan.together) }, () => rig.connect()));
  try {
    const enough = (seen: ScanSeen[], done: number, planned: number) =>
      done >= planned && (judgeLooks(seen).looks >= (plan.minLooks ?? 0) || done >= 2 * planned);
    const alone: ScanSeen[] = [];
    for (let i = 0; !enough(alone, i, plan.alone); i++) alone.push(...(await scansLookedAt(rig, clients.slice(0, 1))));
    const together: ScanSeen[] = [];
    for (let i = 0; !enough(together, i, plan.rounds); i++) together.push(...(await scansLookedAt(rig, clients.slice(0, plan.together))));
    return { alone: judgeLooks(alone), together: judgeLooks(together), seen: { alone, together } };
  } finally {
    await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
  }
}
