import "server-only";
import { serverAddress, type ServerIdentity } from "../../model/compare/identity";
import type { LabResult } from "../../schemas/lab";
import { recordLabResult } from "../history/lab-results";
import { labHistory } from "../history/servers";
import { HistoryStore } from "../history/store";
import type { HistoryConfig } from "../config/config";
import { withClient } from "./cluster";

// `inflight lab`'s result kept in inflight's history file, in the history
// of the server it ran on: the dashboard watching that server (its sizing
// view) reads it there.

const IDENTITY = `
SELECT (SELECT system_identifier::text FROM pg_catalog.pg_control_system()) AS system_id,
       current_setting('server_version') AS version, current_setting('server_version_num')::int AS num,
       (extract(epoch FROM pg_catalog.pg_postmaster_start_time()) * 1000)::float8 AS started`;

async function identity(url: string): Promise<ServerIdentity> {
  const address = serverAddress(url);
  if (!address) throw new Error("--url is not a URL");
  return withClient(url, async (c) => {
    const r = (await c.query<{ system_id: string | null; version: string; num: number; started: number }>(IDENTITY)).rows[0];
    return { address, systemId: r.system_id, serverVersion: r.version, serverVersionNum: r.num, postmasterStart: r.started };
  });
}

/** Writes the result; resolves with where ("FILE, history ID"), or rejects with why it could not. */
export async function keepLabResult(url: string, result: LabResult, config: HistoryConfig): Promise<string> {
  const who = await identity(url);
  const problems: string[] = [];
  const store = HistoryStore.open({ ...config, log: (line) => problems.push(line) });
  try {
    const row = store.guard("writing", null, (db) => labHistory(db, who, Date.now()));
    if (row) recordLabResult(store, row.id, result);
    if (!row || !store.status.on) throw new Error(problems[0] ?? `${config.file} could not be written`);
    return `${config.file}, history ${row.id}`;
  } finally {
    store.close();
  }
}
