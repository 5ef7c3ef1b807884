// pg_settings as the page shows them, restarts, and the checks of whether
// the settings in force are the intended ones.
import { z } from "zod";
import { CHECK_STATUSES } from "./enums";

export const Setting = z.object({
  setting: z.string(),
  unit: z.string().nullable(),
  source: z.string(),
  pendingRestart: z.boolean(),
  /** the value in human units, e.g. "128 kB" for io_combine_limit 16 */
  display: z.string(),
  enumvals: z.array(z.string()).nullable(),
  /** pending only: the value the next start takes, from a line of the configuration files or (none) the built-in default; null when this role cannot read pg_file_settings */
  pendingNext: z
    .object({ value: z.string(), from: z.enum(["file", "default"]) })
    .nullable()
    .optional(),
});
export type Setting = z.infer<typeof Setting>;
export const Settings = z.record(z.string(), Setting);
export type Settings = z.infer<typeof Settings>;

export const SettingChange = z.object({
  name: z.string(),
  before: z.string().nullable(),
  after: z.string().nullable(),
});
export type SettingChange = z.infer<typeof SettingChange>;

export const Restart = z.object({
  /** ms: the new pg_postmaster_start_time() */
  at: z.number(),
  /** ms: when inflight noticed it */
  seenAt: z.number(),
  changes: z.array(SettingChange),
});
export type Restart = z.infer<typeof Restart>;

/** A reload (pg_reload_conf(), SIGHUP) that changed settings in force; a setting left pending_restart by it is not among them. */
export const Reload = z.object({
  /** ms: the server's pg_conf_load_time() after it */
  at: z.number(),
  /** ms: when inflight noticed it */
  seenAt: z.number(),
  changes: z.array(SettingChange),
});
export type Reload = z.infer<typeof Reload>;

export const CheckStatus = z.enum(CHECK_STATUSES);
export type CheckStatus = z.infer<typeof CheckStatus>;
export const Check = z.object({
  id: z.string(),
  status: CheckStatus,
  title: z.string(),
  message: z.string(),
});
export type Check = z.infer<typeof Check>;
