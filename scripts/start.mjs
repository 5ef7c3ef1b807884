// `npm start`: build when needed, then serve on HOST:PORT (127.0.0.1:3000).
// The server itself validates the whole configuration at start; the two
// settings it binds with are checked here, before anything listens.
import { spawn } from "node:child_process";
import path from "node:path";
import { buildIfNeeded } from "./build-if-needed.mjs";

function fail(setting, problem) {
  console.error(`inflight: bad configuration: ${setting}: ${problem}`);
  process.exit(1);
}

const env = process.env;
const host = (env.HOST ?? "").trim() || "127.0.0.1";
const portText = (env.PORT ?? "").trim() || "3000";
if (!/^\d+$/.test(portText) || Number(portText) < 1 || Number(portText) > 65535) fail("PORT", `must be between 1 and 65535, got "${portText.slice(0, 20)}"`);
const loopback = host === "localhost" || host === "::1" || host === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(host);
if (!loopback && !env.INFLIGHT_AUTH_TOKEN) fail("HOST", `"${host}" is not a loopback address: set INFLIGHT_AUTH_TOKEN to serve beyond this machine`);

buildIfNeeded();

const next = path.join(process.cwd(), "node_modules", "next", "dist", "bin", "next");
const child = spawn(process.execPath, [next, "start", "-H", host, "-p", portText], {
  stdio: "inherit",
  // Our own handlers stop the collectors and the embedded PostgreSQL before
  // exiting; Next's would exit at once and leave PostgreSQL running.
  env: { ...env, HOST: host, PORT: portText, NODE_ENV: "production", NEXT_MANUAL_SIG_HANDLE: "true" },
});
// Ctrl-C reaches the whole process group; SIGTERM from a supervisor reaches
// only us: pass it on and wait for the server to stop PostgreSQL cleanly.
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
