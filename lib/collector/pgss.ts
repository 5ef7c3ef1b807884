import "server-only";
import type { Client } from "pg";
import { z } from "zod";
import type { StatementStat } from "../schemas/window";
import type { CapabilitiesRow } from "../window/rows";
import type { TargetWindow } from "../window/window";
import { RowShapeError, sqlText, type StatementName } from "./statements";

const CounterRow = z.object({
  queryid: z.string(),
  calls: z.number(),
  total_exec_time: z.number(),
  read_time: z.number(),
  shared_blks_read: z.number(),
  shared_blks_hit: z.number(),
});
type CounterRow = z.infer<typeof CounterRow>;
const TextRow = z.object({ queryid: z.string(), query: z.string() });

const SNAPSHOT_EVERY_MS = 10_000;
const TOP = 50;
/** After pg_stat_statements failed, try again this much later: each failure is an ERROR line in the server's log. */
const RETRY_FAILED_MS = 60_000;

/**
 * Every statement in sql/ carries this comment inside its text (not before
 * it: pg_stat_statements drops what precedes the first token), so inflight's
 * own statements, and those of any other inflight watching the same server,
 * can be told from the workload in pg_stat_statements and pg_stat_activity.
 */
export const OWN_MARKER = "/* inflight */";
/** Where the extension's schema goes in statements.sql & co. */
const SCHEMA_PLACEHOLDER = "@extschema@";

const TURN_ON_TIMING = "ALTER SYSTEM SET track_io_timing = on; SELECT pg_reload_conf();";
/** Errors that say pg_stat_statements cannot be read here; the session itself is fine. */
const UNREADABLE = new Set(["42883", "42703", "42P01", "42501", "55000", "3F000"]);

/** "1.10" < "1.11": versions compared as numbers, part by part. */
export function versionAtLeast(version: string, min: string): boolean {
  const a = version.split(".").map(Number);
  const b = min.split(".").map(Number);
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d > 0;
  }
  return true;
}

/**
 * The counters statement for an extension version: 1.11 (PostgreSQL 17)
 * renamed blk_read_time to shared_blk_read_time; before 1.8 (PostgreSQL 13)
 * total_exec_time was total_time, which inflight does not read.
 */
export function countersStatement(version: string): "statements" | "statements_legacy" | null {
  if (versionAtLeast(version, "1.11")) return "statements";
  if (versionAtLeast(version, "1.8")) return "statements_legacy";
  return null;
}

/** A statement's text with the extension's schema written in, quoted. */
export function qualify(text: string, schema: string, quoteIdent: (name: string) => string): string {
  return text.split(SCHEMA_PLACEHOLDER).join(quoteIdent(schema));
}

export function statementDeltas(
  oldest: Map<string, CounterRow>,
  latest: Map<string, CounterRow>,
  texts: Map<string, string>,
  readTimeKnown: boolean,
): StatementStat[] {
  const out: StatementStat[] = [];
  for (const [id, cur] of latest) {
    const old = oldest.get(id);
    const calls = cur.calls - (old?.calls ?? 0);
    if (calls <= 0) continue;
    const totalExecTime = cur.total_exec_time - (old?.total_exec_time ?? 0);
    const sharedBlksRead = cur.shared_blks_read - (old?.shared_blks_read ?? 0);
    const timed = cur.read_time - (old?.read_time ?? 0);
    // With track_io_timing on, every read takes some time to issue: blocks
    // read in no time were read with timing off (SET in that session).
    const readTime = readTimeKnown && !(sharedBlksRead > 0 && timed <= 0) ? timed : null;
    out.push({
      queryId: id,
      query: texts.get(id) ?? "",
      calls,
      totalExecTime,
      readTime,
      sharedBlksRead,
      sharedBlksHit: cur.shared_blks_hit - (old?.shared_blks_hit ?? 0),
      readShare: readTime !== null && totalExecTime > 0 ? Math.min(1, readTime / totalExecTime) : null,
    });
  }
  return out.sort((a, b) => b.totalExecTime - a.totalExecTime).slice(0, TOP);
}

/** Why the figures may be incomplete, and what to do; null when they are not. */
export function statementsNote(serverTiming: boolean, stats: StatementStat[]): string | null {
  if (!serverTiming) return `track_io_timing is off: read time is unknown, not zero. Turn it on: ${TURN_ON_TIMING}`;
  const untimed = stats.filter((s) => s.readTime === null).length;
  if (untimed === 0) return null;
  return `${untimed} statement${untimed === 1 ? "" : "s"} read blocks with track_io_timing off in their session (SET track_io_timing = off): their read time is unknown, not zero. Keep it on: ${TURN_ON_TIMING}`;
}

/**
 * pg_stat_statements deltas over the window: exact figures for statements
 * that finished, where the sampled live view can only estimate.
 */
export class StatementsTracker {
  private version: string | null = null;
  private schema: string | null = null;
  private failure: { message: string; at: number } | null = null;
  private snapshots: { t: number; rows: Map<string, CounterRow> }[] = [];
  private texts = new Map<string, string>();

  constructor(private readonly windowMs: number) {}

  configure(caps: CapabilitiesRow): void {
    if (caps.stat_statements !== this.version) this.snapshots = [];
    this.version = caps.stat_statements;
    this.schema = caps.stat_statements_schema;
    // A new connection tries again: the extension may have been fixed.
    this.failure = null;
  }

  async refresh(client: Client, now: number, window: TargetWindow): Promise<void> {
    const unavailable = this.unavailable(now);
    if (unavailable) {
      window.statements = [];
      window.statementsNote = unavailable;
      return;
    }
    let rows: CounterRow[];
    try {
      rows = await this.run(client, countersStatement(this.version!)!, CounterRow);
      await this.loadTexts(client, rows);
      this.failure = null;
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (!code || !UNREADABLE.has(code)) throw err;
      this.failure = { message: (err as Error).message.split("\n")[0], at: now };
      window.statements = [];
      window.statementsNote = this.unavailable(now);
      return;
    }
    const latest = new Map(rows.map((r) => [r.queryid, r]));
    const last = this.snapshots.at(-1);
    if (!last || now - last.t >= SNAPSHOT_EVERY_MS) this.snapshots.push({ t: now, rows: latest });
    while (this.snapshots.length > 1 && this.snapshots[0].t < now - this.windowMs) this.snapshots.shift();
    const serverTiming = window.settings.track_io_timing?.setting === "on";
    window.statements = statementDeltas(this.snapshots[0].rows, latest, this.texts, serverTiming).filter((s) => !isOwn(s.query));
    window.statementsNote = statementsNote(serverTiming, window.statements);
  }

  private unavailable(now: number): string | null {
    if (!this.version || !this.schema) {
      return "pg_stat_statements is not installed in this database: add it to shared_preload_libraries, restart, and CREATE EXTENSION pg_stat_statements.";
    }
    if (!countersStatement(this.version)) return `pg_stat_statements ${this.version} is older than 1.8 (PostgreSQL 13): inflight does not read it. ALTER EXTENSION pg_stat_statements UPDATE;`;
    if (this.failure && now - this.failure.at < RETRY_FAILED_MS) return `pg_stat_statements ${this.version} cannot be read: ${this.failure.message}`;
    return null;
  }

  private async loadTexts(client: Client, rows: CounterRow[]): Promise<void> {
    const missing = rows.filter((r) => !this.texts.has(r.queryid)).map((r) => r.queryid);
    if (missing.length === 0) return;
    for (const row of await this.run(client, "statement_texts", TextRow, [missing])) this.texts.set(row.queryid, row.query);
    for (const id of missing) if (!this.texts.has(id)) this.texts.set(id, "");
    if (this.texts.size > 5000) this.texts.clear();
  }

  /**
   * Runs a pg_stat_statements statement with the extension's schema written
   * in: it need not be on the monitoring role's search_path. The schema is
   * fixed for a connection, so the prepared statement's text is too.
   */
  private async run<T extends z.ZodType>(client: Client, name: StatementName, schema: T, values: unknown[] = []): Promise<z.infer<T>[]> {
    const text = qualify(sqlText(name), this.schema!, (ident) => client.escapeIdentifier(ident));
    const result = await client.query({ name: `inflight_${name}`, text, values });
    const parsed = z.array(schema).safeParse(result.rows);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new RowShapeError(name, `${issue.path.join(".")}: ${issue.message}`);
    }
    return parsed.data;
  }
}

/** The collector's own statements are not the target's workload. */
export function isOwn(query: string): boolean {
  return query.includes(OWN_MARKER);
}
