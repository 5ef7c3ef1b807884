// Which server a history belongs to (pure): the address inflight connects
// to and, where the role can read it, the cluster's system identifier.
// Never the target's display name: two servers on one host are named alike.

/** What the collector knows of the server it is connected to. */
export interface ServerIdentity {
  /** host:port/database, as inflight connects to it */
  address: string;
  /** pg_control_system().system_identifier; null when the role may not read it */
  systemId: string | null;
  serverVersion: string;
  serverVersionNum: number;
  /** pg_postmaster_start_time(), ms */
  postmasterStart: number;
}

/**
 * "127.0.0.1:5432/app" from a postgres:// URL: the host (or the socket
 * folder of ?host=), the port (5432 by default) and the database (the user's
 * name by default, as libpq and node-postgres take it). Null when it is not
 * a URL. The password is never part of it.
 */
export function serverAddress(url: string): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  const host = (u.searchParams.get("host") ?? decodeURIComponent(u.hostname)).replace(/^\[(.*)\]$/, "$1").toLowerCase();
  const port = u.searchParams.get("port") ?? (u.port || "5432");
  const database = decodeURIComponent(u.pathname.replace(/^\//, "")) || u.searchParams.get("dbname") || decodeURIComponent(u.username);
  return `${host.includes(":") ? `[${host}]` : host}:${port}/${database}`;
}

/** 18 from 180004 (10 and later: two digits of minor). */
export const majorOf = (versionNum: number) => Math.floor(versionNum / 10_000);
