// Names and sizes of the relation files seen in pg_aios (pure). The window
// notes each file as it is seen; the collector's relations step asks which
// are unknown or stale, looks one up per tick, and hands the answer back.
import type { ActivityRow, AioHandle, SampledBackend } from "../../schemas/rows";
import type { Relation } from "../../schemas/runs";

/** A name is looked up again after this long while the file is still read (its size grows). */
export const RELATION_REFRESH_MS = 30_000;
const MAX_ENTRIES = 5000;

export const fileKey = (dbOid: number, filenode: number) => `${dbOid}/${filenode}`;

export class RelationNames {
  private entries = new Map<string, { relation: Relation; at: number }>();
  private wanted = new Set<string>();
  private databases = new Map<number, string>();
  private roles = new Map<number, string>();
  private connectedOid = 0;

  /** The database the collector's connection is in: only its relations can be named. */
  setConnected(dbOid: number, name: string): void {
    if (dbOid !== this.connectedOid) this.entries.clear();
    this.connectedOid = dbOid;
    this.databases.set(dbOid, name);
  }

  get connectedDatabase(): number {
    return this.connectedOid;
  }

  /** Database and role names by oid (names.sql). */
  setNames(rows: readonly { kind: "database" | "role"; oid: number; name: string }[]): void {
    for (const row of rows) (row.kind === "database" ? this.databases : this.roles).set(row.oid, row.name);
  }

  database(oid: number | null): string | null {
    return oid === null ? null : (this.databases.get(oid) ?? null);
  }

  role(oid: number | null): string | null {
    return oid === null ? null : (this.roles.get(oid) ?? null);
  }

  /** Whether an oid is one names.sql has not answered for yet (0: none, as for io workers). */
  unknown(kind: "database" | "role", oid: number | null): boolean {
    return oid !== null && oid !== 0 && !(kind === "database" ? this.databases : this.roles).has(oid);
  }

  /** A file was read at `now`: wanted when never looked up, or looked up long ago. */
  noteSeen(dbOid: number, filenode: number, now: number): void {
    const key = fileKey(dbOid, filenode);
    const entry = this.entries.get(key);
    if (!entry || now - entry.at > RELATION_REFRESH_MS) this.wanted.add(key);
  }

  /** The next file to look up, oldest wish first; null when none. */
  nextWanted(): { dbOid: number; filenode: number } | null {
    const key = this.wanted.values().next().value;
    if (key === undefined) return null;
    this.wanted.delete(key);
    const [dbOid, filenode] = key.split("/").map(Number);
    return { dbOid, filenode };
  }

  /** The answer of a look-up; null: the catalog does not know it (a dropped or
   * temporary relation, or one in another database), so the fallback name stays. */
  set(dbOid: number, filenode: number, found: { name: string; blocks: number | null } | null, now: number): void {
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    const relation = found ? { name: found.name, dbOid, filenode, blocks: found.blocks } : this.fallback(dbOid, filenode);
    this.entries.set(fileKey(dbOid, filenode), { relation, at: now });
  }

  /** The sampled backends with database and role names from the cached oids; `unknown`
   * when an oid names.sql has not answered for yet appeared (time to read it again). */
  nameBackends(
    rows: readonly Omit<ActivityRow, "conf_load_ms">[],
    handles: Map<number, AioHandle[]> | null,
  ): { backends: SampledBackend[]; unknown: boolean } {
    let unknown = false;
    const backends: SampledBackend[] = rows.map(({ datid, usesysid, ...row }) => {
      if (this.unknown("database", datid) || this.unknown("role", usesysid)) unknown = true;
      return {
        ...row,
        datname: this.database(datid),
        usename: this.role(usesysid),
        handles: handles ? (handles.get(row.pid) ?? []) : null,
      };
    });
    // Handles of a process not among the sampled backends still count in the totals.
    if (handles) for (const [pid, list] of handles) if (!rows.some((r) => r.pid === pid)) backends.push(strayHandles(pid, list));
    return { backends, unknown };
  }

  get(dbOid: number, filenode: number): Relation {
    return this.entries.get(fileKey(dbOid, filenode))?.relation ?? this.fallback(dbOid, filenode);
  }

  /** "inflight_other: file 16384": the database by name where it is known. */
  private fallback(dbOid: number, filenode: number): Relation {
    const db = dbOid === 0 ? "shared catalog" : this.databases.get(dbOid);
    return { name: db ? `${db}: file ${filenode}` : `database ${dbOid}: file ${filenode}`, dbOid, filenode, blocks: null };
  }
}

/** A process with handles in pg_aios but not among the sampled backends (it went idle meanwhile). */
function strayHandles(pid: number, handles: AioHandle[]): SampledBackend {
  return {
    pid,
    leader_pid: null,
    backend_type: null,
    state: null,
    wait_event_type: null,
    wait_event: null,
    query_id: null,
    query_start_ms: null,
    state_change_ms: null,
    datname: null,
    usename: null,
    query: null,
    handles,
  };
}
