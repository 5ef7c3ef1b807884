// Row shapes of the collector's statements (sql/*.sql), parsed with zod as
// they arrive. Pure: the window derives its figures from these.
import { z } from "zod";

const num = z.coerce.number();

/** [state, operation, length, f_sync, target_desc] of one pg_aios row */
export const AioHandle = z.tuple([z.string(), z.string(), num, z.boolean(), z.string().nullable()]);
export type AioHandle = z.infer<typeof AioHandle>;

export const ActivityRow = z.object({
  pid: z.number(),
  leader_pid: z.number().nullable(),
  backend_type: z.string().nullable(),
  state: z.string().nullable(),
  wait_event_type: z.string().nullable(),
  wait_event: z.string().nullable(),
  query_id: z.string().nullable(),
  query_start_ms: z.number().nullable(),
  datname: z.string().nullable(),
  usename: z.string().nullable(),
  query: z.string().nullable(),
  handles: z.array(AioHandle).nullable(),
});
export type ActivityRow = z.infer<typeof ActivityRow>;

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

export const ServerInfoRow = z.object({
  server_version: z.string(),
  server_version_num: z.number(),
  postmaster_start_ms: z.number(),
});
export type ServerInfoRow = z.infer<typeof ServerInfoRow>;

export const CapabilitiesRow = z.object({
  server_version: z.string(),
  server_version_num: z.number(),
  aios: z.boolean(),
  aios_allowed: z.boolean(),
  stat_io: z.boolean(),
  stat_io_bytes: z.boolean(),
  stat_statements: z.string().nullable(),
  stat_statements_schema: z.string().nullable(),
  read_all_stats: z.boolean(),
  role_name: z.string(),
  database: z.string(),
  database_oid: num,
});
export type CapabilitiesRow = z.infer<typeof CapabilitiesRow>;

export const RelationRow = z.object({
  name: z.string().nullable(),
  blocks: num.nullable(),
});
export type RelationRow = z.infer<typeof RelationRow>;
