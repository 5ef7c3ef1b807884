import "server-only";
import type { z } from "zod";
import {
  ActivityRow,
  AioRow,
  CapabilitiesRow,
  FileSettingRow,
  NameRow,
  PingRow,
  RelationRow,
  ServerInfoRow,
  SettingRow,
  SystemIdentifierRow,
  StatIoRow,
  StatStatementsRow,
  StatStatementsTextRow,
  WaitProfileRow,
} from "../../schemas/rows";

// Every statement inflight runs is a file under sql/; this table is the one
// place that ties each file to the schema of its rows (lib/schemas/rows.ts).
// The runner (run.ts) parses every row with it.

/** sql/<name>.sql -> the schema of its rows. */
export const QUERIES = {
  capabilities: CapabilitiesRow,
  activity: ActivityRow,
  aios: AioRow,
  stat_io: StatIoRow,
  stat_io_op_bytes: StatIoRow,
  settings: SettingRow,
  file_settings: FileSettingRow,
  server_info: ServerInfoRow,
  system_identifier: SystemIdentifierRow,
  relation: RelationRow,
  names: NameRow,
  ping: PingRow,
  stat_statements: StatStatementsRow,
  stat_statements_legacy: StatStatementsRow,
  stat_statements_texts: StatStatementsTextRow,
  wait_profile: WaitProfileRow,
} as const satisfies Record<string, z.ZodType>;
export type QueryName = keyof typeof QUERIES;
export type RowOf<N extends QueryName> = z.infer<(typeof QUERIES)[N]>;
export const QUERY_NAMES = Object.keys(QUERIES) as QueryName[];
