// What PostgreSQL returns: the rows of the statements in sql/, as zod
// schemas. lib/server/pg/queries.ts ties each file to its schema and the
// runner parses every row with it; the window derives its figures from the
// parsed rows.
import { z } from "zod";

const num = z.coerce.number();
/** A column PostgreSQL may return NULL in: NULL stays null, a number stays a number. */
const numOrNull = z.union([z.null(), num]);

/** [state, operation, length, f_sync, target_desc] of one pg_aios row. Any
 * column may be NULL (a handle handed out but not yet defined has no
 * operation): a NULL is a value, never a reason to drop the sample. */
export const AioHandle = z.tuple([z.string().nullable(), z.string().nullable(), numOrNull, z.boolean().nullable(), z.string().nullable()]);
export type AioHandle = z.infer<typeof AioHandle>;

/** A backend of activity.sql: oids, not names; query text only for a new run.
 * conf_load_ms: set on inflight's own row only (pg_conf_load_time(), ms), never a backend of the workload. */
export const ActivityRow = z.object({
  pid: z.number(),
  leader_pid: z.number().nullable(),
  backend_type: z.string().nullable(),
  state: z.string().nullable(),
  wait_event_type: z.string().nullable(),
  wait_event: z.string().nullable(),
  query_id: z.string().nullable(),
  query_start_ms: z.number().nullable(),
  /** when the backend's state last changed: for a run that has gone idle, when its statement ended */
  state_change_ms: z.number().nullable(),
  datid: numOrNull,
  usesysid: numOrNull,
  query: z.string().nullable(),
  conf_load_ms: numOrNull,
});
export type ActivityRow = z.infer<typeof ActivityRow>;

/** The handles of aios.sql, per issuing pid. */
export const AioRow = z.object({ pid: z.number(), handles: z.array(AioHandle) });
export type AioRow = z.infer<typeof AioRow>;

/**
 * One backend as the window derives from it: its activity, names looked up
 * from names.sql, and its AIO handles (null when pg_aios was not read in
 * this sample).
 */
export type SampledBackend = Omit<ActivityRow, "datid" | "usesysid" | "conf_load_ms"> & {
  datname: string | null;
  usename: string | null;
  handles: AioHandle[] | null;
};

export const StatIoRow = z.object({
  backend_type: z.string(),
  object: z.string(),
  context: z.string(),
  reads: num,
  read_bytes: num,
  read_time: num,
  hits: num,
  writes: num,
  write_bytes: num,
  extends: num,
  evictions: num,
});
export type StatIoRow = z.infer<typeof StatIoRow>;

export const SettingRow = z.object({
  name: z.string(),
  setting: z.string(),
  unit: z.string().nullable(),
  source: z.string(),
  pending_restart: z.boolean(),
  enumvals: z.array(z.string()).nullable(),
  vartype: z.string(),
});
export type SettingRow = z.infer<typeof SettingRow>;

/** file_settings.sql: a pending setting's line in the configuration files (null: none), and its built-in default. */
export const FileSettingRow = z.object({
  name: z.string(),
  file_setting: z.string().nullable(),
  boot_val: z.string().nullable(),
});
export type FileSettingRow = z.infer<typeof FileSettingRow>;

export const ServerInfoRow = z.object({
  server_version: z.string(),
  server_version_num: z.number(),
  postmaster_start_ms: z.number(),
  conf_load_ms: z.number(),
});
export type ServerInfoRow = z.infer<typeof ServerInfoRow>;

export const SystemIdentifierRow = z.object({ system_identifier: z.string() });

export const CapabilitiesRow = z.object({
  server_version: z.string(),
  server_version_num: z.number(),
  aios: z.boolean(),
  aios_allowed: z.boolean(),
  /** pg_control_system() may be run (system_identifier.sql) */
  control_system_allowed: z.boolean(),
  stat_io: z.boolean(),
  stat_io_bytes: z.boolean(),
  stat_statements: z.string().nullable(),
  stat_statements_schema: z.string().nullable(),
  read_all_stats: z.boolean(),
  /** pg_wait_sampling's version where it is created in this database */
  wait_sampling: z.string().nullable().default(null),
  wait_sampling_schema: z.string().nullable().default(null),
  /** its settings: null where the library is not preloaded */
  wait_sampling_period_ms: numOrNull.default(null),
  wait_sampling_cpu: z.boolean().nullable().default(null),
  /** pg_wait_sampling.profile_pid: the profile is kept by pid (else one count per event for the whole server) */
  wait_sampling_by_pid: z.boolean().nullable().default(null),
  /** this role may execute pg_wait_sampling_get_profile() */
  wait_sampling_allowed: z.boolean().default(false),
  role_name: z.string(),
  database: z.string(),
  database_oid: num,
});
export type CapabilitiesRow = z.infer<typeof CapabilitiesRow>;

/** [pid, event_type, event, queryid, count] of pg_wait_sampling's profile; NULL event: on CPU. */
export const WaitProfileCount = z.tuple([z.number(), z.string().nullable(), z.string().nullable(), z.string().nullable(), z.number()]);
export type WaitProfileCount = z.infer<typeof WaitProfileCount>;

/** wait_profile.sql: the profile's cumulative counts, its entries (all, the ones left out of the counts too), the server's clock (ms) and the reading session's pid. */
export const WaitProfileRow = z.object({ counts: z.array(WaitProfileCount), entries: num, now_ms: num, own_pid: num });
export type WaitProfileRow = z.infer<typeof WaitProfileRow>;

export const RelationRow = z.object({ name: z.string().nullable(), blocks: numOrNull });
export type RelationRow = z.infer<typeof RelationRow>;

export const NameRow = z.object({ kind: z.enum(["database", "role"]), oid: num, name: z.string() });
export type NameRow = z.infer<typeof NameRow>;

export const PingRow = z.object({ one: z.number() });

/** pg_stat_statements counters of one queryid (top-level and nested summed). */
export const StatStatementsRow = z.object({
  queryid: z.string(),
  calls: z.number(),
  total_exec_time: z.number(),
  /** sum of the squared execution times (ms²): calls x (stddev² + mean²), per entry */
  exec_time_sq: z.number(),
  read_time: z.number(),
  shared_blks_read: z.number(),
  shared_blks_hit: z.number(),
  /** run by inflight's own role: what watching costs */
  own: z.boolean(),
  /** this role's calls and their execution time alone (ms): another role running the same file is not us */
  own_calls: z.number(),
  own_exec_time: z.number(),
  /** when the entry was made, ms (pg_stat_statements 1.11 and later; absent before) */
  stats_since_ms: z.number().nullable().optional(),
});
export type StatStatementsRow = z.infer<typeof StatStatementsRow>;

export const StatStatementsTextRow = z.object({ queryid: z.string(), query: z.string() });
export type StatStatementsTextRow = z.infer<typeof StatStatementsTextRow>;
