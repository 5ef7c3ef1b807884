import "server-only";
import { readFileSync } from "node:fs";
import { z } from "zod";
import { ConfigError } from "./config-error";

// The targets to watch, from DATABASE_URL, INFLIGHT_TARGETS and
// INFLIGHT_CONFIG (config.ts reads the environment and hands it here).

export interface TargetConfig {
  id: string;
  name: string;
  url: string;
  demo: boolean;
}

const TARGET_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/;

/** Parses a postgres URL without ever echoing it (it may hold a password). `which`: "target 2: ". */
function checkUrl(setting: string, which: string, hint: string, url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError(setting, `${which}is not a valid URL (expected postgres://user:password@host:port/database)${hint}`);
  }
  if (parsed.protocol !== "postgres:" && parsed.protocol !== "postgresql:") {
    // The scheme is not echoed either: a piece of a password can stand there.
    throw new ConfigError(setting, `${which}is not a postgres:// or postgresql:// URL${hint}`);
  }
  if (!parsed.hostname && !parsed.searchParams.get("host")) {
    throw new ConfigError(setting, `${which}has no host${hint}`);
  }
  return url;
}

function slug(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9_.-]+/g, "-");
}

/**
 * Targets are named by their place in the setting, never by their text: a
 * password holding "," splits INFLIGHT_TARGETS mid-URL, and its pieces then
 * stand where a name and a URL go ("postgres://u:Ab,cd=ef@h" -> "cd" as a name).
 */
function addTarget(out: TargetConfig[], setting: string, place: number, name: string, url: string) {
  const which = setting === "DATABASE_URL" ? "" : setting === "INFLIGHT_CONFIG" ? `targets.${place - 1}: ` : `target ${place}: `;
  const hint = setting === "INFLIGHT_TARGETS" ? ` (a "," in a password is written %2C)` : "";
  if (!TARGET_NAME.test(name)) {
    throw new ConfigError(setting, `${which}its name must be letters, digits, "_", "-" or "." (up to 63 characters)${hint}`);
  }
  const id = slug(name);
  if (out.some((t) => t.id === id)) throw new ConfigError(setting, `${which}has the same name as an earlier target${hint}`);
  out.push({ id, name, url: checkUrl(setting, which, hint, url), demo: false });
}

const FileConfig = z.strictObject({
  targets: z.array(z.strictObject({ name: z.string(), url: z.string() })).min(1, "needs at least one target"),
});

export function parseTargets(env: Record<string, string | undefined>): TargetConfig[] {
  const targets: TargetConfig[] = [];
  if (env.DATABASE_URL) addTarget(targets, "DATABASE_URL", 1, hostName(env.DATABASE_URL), env.DATABASE_URL);
  if (env.INFLIGHT_TARGETS) {
    const parts = env.INFLIGHT_TARGETS.split(",")
      .map((p) => p.trim())
      .filter(Boolean);
    parts.forEach((part, i) => {
      const eq = part.indexOf("=");
      if (eq <= 0)
        throw new ConfigError(
          "INFLIGHT_TARGETS",
          `target ${i + 1}: expected name=url pairs separated by commas (a "," in a password is written %2C)`,
        );
      addTarget(targets, "INFLIGHT_TARGETS", i + 1, part.slice(0, eq).trim(), part.slice(eq + 1).trim());
    });
  }
  if (env.INFLIGHT_CONFIG) {
    let text: string;
    try {
      text = readFileSync(env.INFLIGHT_CONFIG, "utf8");
    } catch (err) {
      throw new ConfigError("INFLIGHT_CONFIG", `cannot read the file (${(err as NodeJS.ErrnoException).code ?? "error"})`);
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      // JSON.parse's message quotes the text, which may hold a password.
      throw new ConfigError("INFLIGHT_CONFIG", "is not valid JSON");
    }
    const parsed = FileConfig.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new ConfigError("INFLIGHT_CONFIG", `${issue.path.join(".") || "file"}: ${issue.message}`);
    }
    parsed.data.targets.forEach((t, i) => addTarget(targets, "INFLIGHT_CONFIG", i + 1, t.name, t.url));
  }
  return targets;
}

/** A name for a DATABASE_URL target: its host (never the password). */
function hostName(url: string): string {
  try {
    const host = new URL(url).hostname || "target";
    return host.replace(/[^A-Za-z0-9_.-]/g, "-").replace(/^[^A-Za-z0-9]+/, "") || "target";
  } catch {
    return "target";
  }
}
