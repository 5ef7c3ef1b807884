// pg_stat_statements counters by role, and what changed between two
// readings. Every statement inflight runs carries `/* inflight:<file> */`
// (its file in sql/), and every statement the bench runs bare carries
// `/* bench part: <name> */`: the marker, not the text around it, says which
// statement a row is. Pure: target.ts reads the rows.

export interface StatementCounters {
  queryid: string;
  calls: number;
  totalExecMs: number;
  /** the statement's marker (statementMarker), null for none */
  file: string | null;
  query: string;
}

/** pg_stat_statements counters by role, then queryid. */
export type PgssSnapshot = Map<string, Map<string, StatementCounters>>;

/**
 * The statement a query text is: "activity" for `/* inflight:activity *\/`
 * (a file of sql/), "part:view" for `/* bench part: view *\/`, null for
 * neither (another tool's statement, or one without a marker).
 */
export function statementMarker(query: string): string | null {
  const file = /\/\* inflight:([a-z0-9_]+) \*\//.exec(query);
  if (file) return file[1];
  const part = /\/\* bench part: ([A-Za-z0-9_]+) \*\//.exec(query);
  return part ? `part:${part[1]}` : null;
}

/** One role's pg_stat_statements rows as a snapshot; a queryid seen in several databases is summed. */
export function snapshotOf(
  rows: { rolname: string; queryid: string; calls: number; totalExecMs: number; query: string }[],
  roles: string[],
): PgssSnapshot {
  const out: PgssSnapshot = new Map();
  for (const role of roles) out.set(role, new Map());
  for (const r of rows) {
    const mine = out.get(r.rolname);
    if (!mine) continue;
    const prev = mine.get(r.queryid);
    mine.set(r.queryid, {
      queryid: r.queryid,
      calls: r.calls + (prev?.calls ?? 0),
      totalExecMs: r.totalExecMs + (prev?.totalExecMs ?? 0),
      file: prev?.file ?? statementMarker(r.query),
      query: prev?.query ?? r.query,
    });
  }
  return out;
}

export interface FileDelta {
  calls: number;
  totalExecMs: number;
}

export interface RoleDelta {
  calls: number;
  totalExecMs: number;
  /** by marker (statementMarker); "?" for statements without one */
  byFile: Record<string, FileDelta>;
  statements: { file: string | null; query: string; calls: number; totalExecMs: number }[];
}

export function pgssDelta(before: PgssSnapshot, after: PgssSnapshot, role: string): RoleDelta {
  const b = before.get(role) ?? new Map<string, StatementCounters>();
  const a = after.get(role) ?? new Map<string, StatementCounters>();
  const out: RoleDelta = { calls: 0, totalExecMs: 0, byFile: {}, statements: [] };
  for (const [id, cur] of a) {
    const old = b.get(id);
    const calls = cur.calls - (old?.calls ?? 0);
    const ms = cur.totalExecMs - (old?.totalExecMs ?? 0);
    if (calls <= 0) continue;
    out.calls += calls;
    out.totalExecMs += ms;
    const key = cur.file ?? "?";
    const f = (out.byFile[key] ??= { calls: 0, totalExecMs: 0 });
    f.calls += calls;
    f.totalExecMs += ms;
    out.statements.push({
      file: cur.file,
      query: cur.query.replace(/\s+/g, " ").slice(0, 120),
      calls,
      totalExecMs: Math.round(ms * 1000) / 1000,
    });
  }
  out.statements.sort((x, y) => y.totalExecMs - x.totalExecMs);
  return out;
}

/** Mean execution time of one statement (by marker) in a delta; null when it did not run. */
export function meanMs(d: RoleDelta, file: string): number | null {
  const f = d.byFile[file];
  return f && f.calls > 0 ? f.totalExecMs / f.calls : null;
}

/** Each statement's calls, mean and server ms per second over `seconds`, costliest first. */
export function perStatement(
  d: RoleDelta,
  seconds: number,
): { file: string; calls: number; callsPerSecond: number; meanMs: number; msPerSecond: number }[] {
  const r3 = (x: number) => Math.round(x * 1000) / 1000;
  return Object.entries(d.byFile)
    .map(([file, f]) => ({
      file,
      calls: f.calls,
      callsPerSecond: r3(f.calls / seconds),
      meanMs: r3(f.totalExecMs / f.calls),
      msPerSecond: r3(f.totalExecMs / seconds),
    }))
    .sort((x, y) => y.msPerSecond - x.msPerSecond);
}
