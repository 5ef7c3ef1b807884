#!/usr/bin/env node
// `npm run lab -- --help`: the labs' A/B for a cluster you control. The work
// is TypeScript (lib/server/lab/cli.ts), loaded with vite's runnerImport
// (vite is here through vitest) with the aliases vitest.config.ts uses.
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { runnerImport } from "vite";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const alias = { "server-only": path.join(root, "test", "support", "server-only-stub.ts"), "@": root };

/** lib/server/lab/cli.ts, loaded; exits the process when it cannot be. */
export async function loadLab() {
  try {
    return (await runnerImport(path.join(root, "lib", "server", "lab", "cli.ts"), { root, logLevel: "silent", resolve: { alias } })).module;
  } catch (err) {
    console.error(`lab: could not load lib/server/lab/cli.ts: ${err?.message ?? err}`);
    process.exit(1);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  process.exitCode = await (await loadLab()).main(process.argv.slice(2));
