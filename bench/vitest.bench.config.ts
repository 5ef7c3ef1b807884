// `npm run bench` runs bench/run.ts through vitest (TypeScript, the
// "server-only" alias of the project's tests), one long test, no retries.
import path from "node:path";
import { defineConfig } from "vitest/config";

const root = path.resolve(import.meta.dirname, "..");
const alias = {
  "server-only": path.join(root, "test/support/server-only-stub.ts"),
  "@": root,
};

export default defineConfig({
  root,
  resolve: { alias },
  test: {
    include: ["bench/run.ts"],
    environment: "node",
    pool: "forks",
    // the soak speaks to its server's inspector over a WebSocket: global from Node 22, behind this flag in 20
    execArgv: process.allowedNodeEnvironmentFlags.has("--experimental-websocket") ? ["--experimental-websocket"] : [],
    fileParallelism: false,
    testTimeout: 60 * 60_000,
    hookTimeout: 10 * 60_000,
    // progress lines go straight to the terminal, not into vitest's buffer
    disableConsoleIntercept: true,
    retry: 0,
  },
});
