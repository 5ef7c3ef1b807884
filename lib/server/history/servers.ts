import "server-only";
import type Database from "better-sqlite3";
import { majorOf, type ServerIdentity } from "../../model/compare/identity";

// Which history a server's rows go to (servers in schema.ts). By its
// address and system identifier; by its address alone where the role may
// not read pg_control_system() (identified_by says which). A new
// identifier at the same address is another server (a cluster rebuilt with
// initdb), except with a newer major: pg_upgrade makes a new identifier,
// and the upgraded server keeps its history (its restart then shows
// server_version among the changes).

export interface ServerRow {
  id: string;
  address: string | null;
  system_id: string | null;
  identified_by: "system_identifier" | "address" | "name";
  server_version: string | null;
  legacy_name: string | null;
  last_seen: number;
}

const AT_ADDRESS = "SELECT * FROM servers WHERE address = ? ORDER BY last_seen DESC";

/** The newest history seen at `address` (before the server is connected to: the one it most likely is). */
export function latestAt(db: Database.Database, address: string): ServerRow | undefined {
  return db.prepare(AT_ADDRESS).get(address) as ServerRow | undefined;
}

/** A history of schema 1 (keyed by a name) whose last recorded server start is this server's: it was written from here. */
function legacyOf(db: Database.Database, postmasterStart: number): ServerRow | undefined {
  return db
    .prepare(
      `SELECT s.* FROM servers s WHERE s.address IS NULL AND s.legacy_name IS NOT NULL
         AND (SELECT epoch FROM settings WHERE history = s.id ORDER BY t DESC LIMIT 1) = ?`,
    )
    .get(postmasterStart) as ServerRow | undefined;
}

function pick(rows: ServerRow[], who: ServerIdentity): ServerRow | undefined {
  if (who.systemId === null) return rows[0];
  const same = rows.find((r) => r.system_id === who.systemId) ?? rows.find((r) => r.system_id === null);
  if (same) return same;
  // pg_upgrade: same address, a new identifier and a newer major than the last seen here.
  const last = rows[0];
  const lastNum = last?.server_version ? versionNum(last.server_version) : null;
  return last && lastNum !== null && majorOf(who.serverVersionNum) > majorOf(lastNum) ? last : undefined;
}

/** "18.4" / "19beta1" / "17.2 (Debian 17.2-1)" -> 180004 / 190000 / 170002. */
function versionNum(version: string): number | null {
  const m = /^(\d+)(?:\.(\d+))?/.exec(version);
  return m ? Number(m[1]) * 10_000 + Number(m[2] ?? 0) : null;
}

/** The history of the server `who`, made when it has none; the row is brought up to date (identifier, how it is identified). */
export function resolveHistory(db: Database.Database, who: ServerIdentity, now: number): ServerRow {
  const rows = db.prepare(AT_ADDRESS).all(who.address) as ServerRow[];
  const found = pick(rows, who) ?? legacyOf(db, who.postmasterStart);
  const identifiedBy = who.systemId === null ? "address" : "system_identifier";
  const row: ServerRow = found
    ? { ...found, address: who.address, system_id: who.systemId ?? found.system_id, identified_by: identifiedBy, last_seen: now }
    : {
        id: who.systemId === null ? who.address : `${who.address}#${who.systemId}`,
        address: who.address,
        system_id: who.systemId,
        identified_by: identifiedBy,
        server_version: null,
        legacy_name: null,
        last_seen: now,
      };
  // server_version is the one the restart diff is made against: settings rows carry it, this row only for pick().
  row.server_version = who.serverVersion;
  db.prepare(
    `INSERT INTO servers (id, address, system_id, identified_by, server_version, legacy_name, last_seen)
     VALUES (@id, @address, @system_id, @identified_by, @server_version, @legacy_name, @last_seen)
     ON CONFLICT (id) DO UPDATE SET address = excluded.address, system_id = excluded.system_id, identified_by = excluded.identified_by,
       server_version = excluded.server_version, last_seen = excluded.last_seen`,
  ).run(row);
  return row;
}

const portOf = (address: string) => /:(\d+)\//.exec(address)?.[1] ?? null;

/**
 * The history a lab's result goes to (`inflight lab`, which connects as a
 * superuser, maybe to another database than the dashboard does): the one
 * kept for the server with this system identifier, the one at the same port
 * when there are several (a replica has its primary's identifier); else the
 * history at the lab's own address (made when there is none).
 */
export function labHistory(db: Database.Database, who: ServerIdentity, now: number): ServerRow {
  if (who.systemId !== null) {
    const rows = db.prepare("SELECT * FROM servers WHERE system_id = ? ORDER BY last_seen DESC").all(who.systemId) as ServerRow[];
    const port = portOf(who.address);
    const found = rows.find((r) => r.address !== null && portOf(r.address) === port) ?? (rows.length === 1 ? rows[0] : undefined);
    if (found) return found;
  }
  return resolveHistory(db, who, now);
}
