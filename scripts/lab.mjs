#!/usr/bin/env node
// `npm run lab -- --help`: the labs' A/B for a cluster you control. The work
// is TypeScript (lib/server/lab/cli.ts), loaded with vite's runnerImport
// (vite is here through vitest) with the aliases vitest.config.ts uses.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { runnerImport } from "vite";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const alias = { "server-only": path.join(root, "test", "support", "server-only-stub.ts"), "@": root };

let cli;
try {
  ({ module: cli } = await runnerImport(path.join(root, "lib", "server", "lab", "cli.ts"), { root, logLevel: "silent", resolve: { alias } }));
} catch (err) {
  console.error(`lab: could not load lib/server/lab/cli.ts: ${err?.message ?? err}`);
  process.exit(1);
}
process.exitCode = await cli.main(process.argv.slice(2));
