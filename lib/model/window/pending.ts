// A setting that waits for a restart, said fully: the value the next start
// takes when it can be known, what that start will do, and that the flag
// may outlive its change. One wording for the check and the finding.
import type { FileSettingRow } from "../../schemas/rows";
import type { Setting, Settings } from "../../schemas/settings";

/** What the next start does under each io_method. */
const METHOD_EFFECTS: Readonly<Record<string, string>> = {
  sync: "reads will be synchronous: a running scan's reads will wait one by one",
  worker: "reads handed to io workers",
  io_uring: "reads submitted to the kernel through io_uring by each backend (no io workers)",
};

/** PostgreSQL never clears the flag before a restart, not even when the change is undone. */
export const FLAG_OUTLIVES =
  "PostgreSQL keeps pending_restart set after a change is undone (ALTER SYSTEM RESET and a reload), so the flag may outlive its change.";

/** The settings waiting for a restart, by name. */
export function pendingSettings(settings: Readonly<Settings>): [string, Setting][] {
  return Object.entries(settings).filter(([, s]) => s.pendingRestart);
}

/**
 * Each pending setting's next value from pg_file_settings (the last line
 * read wins; with no line, the built-in default): `rows` null when the role
 * cannot read it (the value stays unknown, null).
 */
export function withPendingValues(settings: Readonly<Settings>, rows: readonly FileSettingRow[] | null): Settings {
  const out: Settings = { ...settings };
  for (const [name, s] of pendingSettings(settings)) {
    const row = rows?.find((r) => r.name === name);
    const next = !row
      ? null
      : row.file_setting !== null
        ? { value: row.file_setting, from: "file" as const }
        : row.boot_val !== null
          ? { value: row.boot_val, from: "default" as const }
          : null;
    out[name] = { ...s, pendingNext: next };
  }
  return out;
}

const same = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

const CANNOT_READ = "pg_file_settings, which this role cannot read (a superuser's, unless granted)";

/** The value the next start takes, how it is known, and whether it is inferred; null: not known. */
export function nextValue(s: Setting): { value: string; how: string; inferred: boolean } | null {
  if (s.pendingNext)
    return {
      value: s.pendingNext.value,
      how: s.pendingNext.from === "file" ? "pg_file_settings" : "the built-in default: no configuration file sets it now",
      inferred: false,
    };
  const offered = s.enumvals ?? [];
  const others = offered.filter((v) => v !== s.setting);
  // An enum with only one other value: a change can only be to it (if it was not undone since).
  if (others.length === 1)
    return { value: others[0], how: `the only other value this build offers (${offered.join(", ")})`, inferred: true };
  return null;
}

function pendingClause(name: string, s: Setting): string {
  const next = nextValue(s);
  if (!next) return `${name} ${s.display} in force; the value the next restart brings is in ${CANNOT_READ}`;
  if (same(next.value, s.setting))
    return `${name} ${s.display} in force, and the next restart brings ${next.value} again (${next.how}): the change was undone, the restart changes nothing`;
  const effect = name === "io_method" ? METHOD_EFFECTS[next.value] : undefined;
  const unless = next.inferred ? "; unless the change was undone since (pg_file_settings would tell; this role cannot read it)" : "";
  return `${name} ${s.display} in force; the next restart brings ${next.value} (${next.how})${effect ? `: ${effect}` : ""}${unless}`;
}

/** "io_method worker in force; the next restart brings sync (...): reads will be ... PostgreSQL keeps ..."; null when nothing waits. */
export function pendingText(settings: Readonly<Settings>): string | null {
  const pending = pendingSettings(settings);
  if (!pending.length) return null;
  return `Waiting for a restart: ${pending.map(([name, s]) => pendingClause(name, s)).join("; ")}. ${FLAG_OUTLIVES}`;
}

/** "io_method sync", "io_method ?" when the next value cannot be known: a pending setting in a few words. */
export function pendingGlance(name: string, s: Setting): string {
  const next = nextValue(s);
  if (next && same(next.value, s.setting)) return `${name} (undone)`;
  return `${name} ${next?.value ?? "?"}`;
}
