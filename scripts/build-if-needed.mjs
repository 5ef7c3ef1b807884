// Builds the Next.js app when the build is missing or older than a source
// file, so `npm start` and `npm test` work on a fresh clone and stay fast
// on the second run.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";

const SOURCES = ["app", "components", "lib", "public", "instrumentation.ts", "proxy.ts", "next.config.ts", "postcss.config.mjs", "package-lock.json", "tsconfig.json"];

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

export function buildIfNeeded(root = process.cwd()) {
  const buildId = path.join(root, ".next", "BUILD_ID");
  const built = existsSync(buildId) ? statSync(buildId).mtimeMs : 0;
  const newest = Math.max(...SOURCES.map((s) => newestMtime(path.join(root, s))));
  if (built && built >= newest) return;
  console.log(built ? "[inflight] sources changed since the last build: building" : "[inflight] no build yet: building (about a minute)");
  const result = spawnSync(process.execPath, [path.join(root, "node_modules", "next", "dist", "bin", "next"), "build"], { cwd: root, stdio: "inherit" });
  if (result.status !== 0) {
    console.error("[inflight] the build failed");
    process.exit(result.status ?? 1);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) buildIfNeeded();
