// Builds the Next.js app when the build is missing or older than a source
// file, so `npm start` and `npm test` work on a fresh clone and stay fast
// on the second run. While `next build` runs, a line every few seconds says
// which of its phases it is in (read from its own output) and for how long;
// the end says the total and each phase's share.
import { spawn } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { shimExternals, stampBuild } from "./external-shims.mjs";

const SOURCES = [
  "app",
  "components",
  "lib",
  "public",
  "instrumentation.ts",
  "proxy.ts",
  "next.config.ts",
  "postcss.config.mjs",
  "package-lock.json",
  "tsconfig.json",
];
const TICK_MS = 5_000;

function newestMtime(entry) {
  if (!existsSync(entry)) return 0;
  const stat = statSync(entry);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = 0;
  for (const name of readdirSync(entry)) {
    if (name === "node_modules" || name.startsWith(".")) continue;
    newest = Math.max(newest, newestMtime(path.join(entry, name)));
  }
  return newest;
}

/** Why a build is needed ("no build yet", "sources changed ..."), or null when the build is current. */
export function buildNeeded(root = process.cwd()) {
  const buildId = path.join(root, ".next", "BUILD_ID");
  const built = existsSync(buildId) ? statSync(buildId).mtimeMs : 0;
  if (!built) return "no build yet";
  const newest = Math.max(...SOURCES.map((s) => newestMtime(path.join(root, s))));
  return built >= newest ? null : "sources changed since the last build";
}

/**
 * The phase a line of `next build` output starts, or null. Next prints each
 * phase as a line ending in "...": "Creating an optimized production build
 * ...", "Running TypeScript ...", "Collecting page data using 1 worker ...",
 * "Generating static pages using 1 worker (0/3) ...", "Finalizing page
 * optimization ...". "Finished TypeScript in 2.6s ..." ends one, not a phase.
 */
export function phaseOf(line) {
  // eslint-disable-next-line no-control-regex -- ESC starts the colour codes next build prints; they are stripped here
  const COLOUR = /\x1b\[[0-9;]*m/g;
  const bare = line.replace(COLOUR, "").trim();
  const text = bare.replace(/^[^A-Za-z]+/, "");
  if (!/\.\.\.$/.test(text) || /^Finished\b/.test(text)) return null;
  const name = text
    .replace(/\s*\.\.\.$/, "")
    .replace(/\s+using \d+ workers?/, "")
    .replace(/\s*\(\d+\/\d+\)$/, "")
    .trim();
  // A phase is a few plain words; a warning's code frame ("16 | ...length) return ...") is not.
  return /^[A-Z][a-z]+( [A-Za-z]+){0,6}$/.test(name) ? name : null;
}

const seconds = (ms) => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;

/** "Creating an optimized production build 8.2 s, Running TypeScript 2.6 s, ..." from [{name, ms}]. */
export function phaseSummary(phases) {
  return phases.map((p) => `${p.name} ${seconds(p.ms)}`).join(", ");
}

/** Runs `next build` with progress lines; resolves with its exit code. */
export function runBuild(root = process.cwd(), { label = "[inflight]", log = console.log, tickMs = TICK_MS } = {}) {
  const started = Date.now();
  const phases = [{ name: "starting next build", at: started }];
  const current = () => phases[phases.length - 1];
  const child = spawn(process.execPath, [path.join(root, "node_modules", "next", "dist", "bin", "next"), "build"], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
    // next build runs next.config.ts before it settles NODE_ENV: a build is
    // production. No telemetry: nothing the project runs phones home.
    env: { ...process.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1" },
  });
  const onLine = (line, out) => {
    out.write(`${line}\n`);
    const phase = phaseOf(line);
    if (phase && phase !== current().name) phases.push({ name: phase, at: Date.now() });
  };
  for (const [stream, out] of [
    [child.stdout, process.stdout],
    [child.stderr, process.stderr],
  ]) {
    let rest = "";
    stream.setEncoding("utf8");
    stream.on("data", (chunk) => {
      const parts = (rest + chunk).split(/\r?\n|\r/);
      rest = parts.pop();
      for (const line of parts) onLine(line, out);
    });
    stream.on("end", () => rest && onLine(rest, out));
  }
  const tick = setInterval(() => {
    const now = Date.now();
    log(`${label} building: ${current().name} (${seconds(now - current().at)}), ${seconds(now - started)} so far`);
  }, tickMs);
  // A supervisor's SIGTERM (or Ctrl-C) during the build stops the build too.
  const stop = (signal) => child.kill(signal);
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  return new Promise((resolve) => {
    child.on("close", (code, signal) => {
      clearInterval(tick);
      process.off("SIGTERM", stop);
      process.off("SIGINT", stop);
      const ended = Date.now();
      const timed = phases.map((p, i) => ({ name: p.name, ms: (phases[i + 1]?.at ?? ended) - p.at }));
      if (code === 0) log(`${label} built in ${seconds(ended - started)}: ${phaseSummary(timed)}`);
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

/** Builds when needed; exits the process when the build fails. */
export async function buildIfNeeded(root = process.cwd(), { label = "[inflight]" } = {}) {
  const why = buildNeeded(root);
  if (!why) return;
  console.log(`${label} ${why}: building the app (next build; a progress line every ${TICK_MS / 1000} s)`);
  const started = Date.now();
  const code = await runBuild(root, { label });
  if (code !== 0) {
    console.error(`${label} the build failed (exit ${code}) after ${seconds(Date.now() - started)}`);
    process.exit(code || 1);
  }
  // The build served as a package ships it (scripts/external-shims.mjs).
  await shimExternals(root, { label });
  stampBuild(root);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await buildIfNeeded();
