import "server-only";
import type { Client } from "pg";
import { z } from "zod";
import type { StatementStat } from "../schemas/window";
import type { CapabilitiesRow } from "../window/rows";
import type { TargetWindow } from "../window/window";
import { STATEMENT_NAMES, runStatement, sqlText } from "./statements";

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
    const readTime = readTimeKnown ? cur.read_time - (old?.read_time ?? 0) : null;
    out.push({
      queryId: id,
      query: texts.get(id) ?? "",
      calls,
      totalExecTime,
      readTime,
      sharedBlksRead: cur.shared_blks_read - (old?.shared_blks_read ?? 0),
      sharedBlksHit: cur.shared_blks_hit - (old?.shared_blks_hit ?? 0),
      readShare: readTime !== null && totalExecTime > 0 ? Math.min(1, readTime / totalExecTime) : null,
    });
  }
  return out.sort((a, b) => b.totalExecTime - a.totalExecTime).slice(0, TOP);
}

/**
 * pg_stat_statements deltas over the window: exact figures for statements
 * that finished, where the sampled live view can only estimate.
 */
export class StatementsTracker {
  private version: string | null = null;
  private snapshots: { t: number; rows: Map<string, CounterRow> }[] = [];
  private texts = new Map<string, string>();
  private ownTexts: Set<string> | null = null;

  constructor(private readonly windowMs: number) {}

  configure(caps: CapabilitiesRow): void {
    if (caps.stat_statements !== this.version) this.snapshots = [];
    this.version = caps.stat_statements;
  }

  async refresh(client: Client, now: number, window: TargetWindow): Promise<void> {
    if (!this.version) {
      window.statements = [];
      window.statementsNote = "pg_stat_statements is not installed in this database: add it to shared_preload_libraries, restart, and CREATE EXTENSION pg_stat_statements.";
      return;
    }
    const name = versionAtLeast(this.version, "1.11") ? "statements" : "statements_legacy";
    const rows = await runStatement(client, name, CounterRow);
    const latest = new Map(rows.map((r) => [r.queryid, r]));
    await this.loadTexts(client, rows);
    const last = this.snapshots.at(-1);
    if (!last || now - last.t >= SNAPSHOT_EVERY_MS) this.snapshots.push({ t: now, rows: latest });
    while (this.snapshots.length > 1 && this.snapshots[0].t < now - this.windowMs) this.snapshots.shift();
    const readTimeKnown = window.settings.track_io_timing?.setting === "on";
    window.statements = statementDeltas(this.snapshots[0].rows, latest, this.texts, readTimeKnown).filter((s) => !this.isOwn(s.query));
    window.statementsNote = readTimeKnown
      ? null
      : "track_io_timing is off: read time is unknown, not zero. Turn it on: ALTER SYSTEM SET track_io_timing = on; SELECT pg_reload_conf();";
  }

  private async loadTexts(client: Client, rows: CounterRow[]): Promise<void> {
    const missing = rows.filter((r) => !this.texts.has(r.queryid)).map((r) => r.queryid);
    if (missing.length === 0) return;
    for (const row of await runStatement(client, "statement_texts", TextRow, [missing])) this.texts.set(row.queryid, row.query);
    for (const id of missing) if (!this.texts.has(id)) this.texts.set(id, "");
    if (this.texts.size > 5000) this.texts.clear();
  }

  /** The collector's own statements are not the target's workload. */
  private isOwn(query: string): boolean {
    this.ownTexts ??= new Set(STATEMENT_NAMES.map((n) => sqlText(n).trim()));
    return this.ownTexts.has(query.trim());
  }

  /** The normalised text for a query id, if seen (for INFLIGHT_REDACT). */
  textOf(queryId: string): string | undefined {
    return this.texts.get(queryId);
  }
}
