// `npm start`: build when needed, boot inflight, then serve on HOST:PORT
// (127.0.0.1:3000). `node scripts/start.mjs --no-build` serves the build
// that is there.
//
// A custom Next.js server in this process, not `next start`: `next start`
// binds the port and prints "Ready" before instrumentation's register()
// runs, which is where inflight reads and checks its configuration. Here the
// order is: the two settings we bind with (below, before the build), the
// build, Next's production server prepared, register() awaited (lib/boot:
// the whole configuration checked, exit 1 with one line when it is bad; the
// collectors and, with no target, the embedded PostgreSQL started), and only
// then listen and print `[inflight] ready on http://HOST:PORT`.
//
// `await app.prepare()` alone is not enough in production: Next 16 only
// starts register() there (NextNodeServer's constructor fires prepare()
// without awaiting it) and awaits it before the first request it handles.
// So we await Next's own memoized registration promise
// (ensureInstrumentationRegistered, the one next-server.js awaits), then
// check that inflight's runtime exists before listening.
//
// Signals: Next's SIGINT/SIGTERM handlers belong to `next start` and are not
// installed in a custom server; lib/boot.ts's handlers stop the collectors
// and the embedded PostgreSQL, then exit 0.
import http from "node:http";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { buildIfNeeded } from "./build-if-needed.mjs";
import { stampProblem } from "./external-shims.mjs";

function fail(setting, problem) {
  // The flag that set it, when the `inflight` command did (lib/server/config/config.ts settingName).
  const flag = globalThis[Symbol.for("inflight.flags")]?.[setting];
  console.error(`inflight: bad configuration: ${flag ? `${flag} (${setting})` : setting}: ${problem}`);
  process.exit(1);
}

/** /proc/net/tcp(6)'s hex spellings of the local addresses a listener on `h` would clash with. */
function clashing(h) {
  const v4 = (a) =>
    a
      .split(".")
      .reverse()
      .map((b) => Number(b).toString(16).toUpperCase().padStart(2, "0"))
      .join("");
  const out = new Set(["00000000", "00000000000000000000000000000000"]); // 0.0.0.0 and ::
  const loop6 = "00000000000000000000000001000000"; // ::1
  if (h === "localhost") out.add(v4("127.0.0.1")).add(loop6);
  else if (h === "::1") out.add(loop6);
  else if (/^\d+\.\d+\.\d+\.\d+$/.test(h)) out.add(v4(h)).add(`0000000000000000FFFF0000${v4(h)}`);
  return out;
}

/** Something already LISTENs where we would bind, from /proc; false where /proc cannot say. */
function portTaken(h, p) {
  const want = clashing(h);
  const any = h === "0.0.0.0" || h === "::"; // a wildcard bind clashes with every address
  const hex = p.toString(16).toUpperCase().padStart(4, "0");
  try {
    return ["/proc/net/tcp", "/proc/net/tcp6"].some(
      (file) =>
        existsSync(file) &&
        readFileSync(file, "utf8")
          .split("\n")
          .slice(1)
          .some((line) => {
            const f = line.trim().split(/\s+/);
            const [addr, portHex] = (f[1] ?? "").split(":");
            return f[3] === "0A" && portHex === hex && (any || want.has(addr));
          }),
    );
  } catch {
    return false;
  }
}

/**
 * Boots inflight and serves it. `build`: build first when the sources are
 * newer than .next (a checkout); false serves the build that is there (the
 * tests, and the installed package, which ships its build).
 */
export async function start({ build = true } = {}) {
  const env = process.env;
  // Nothing phones home: not Next's telemetry in the build below, nor at run time.
  env.NEXT_TELEMETRY_DISABLED = "1";
  const host = (env.HOST ?? "").trim() || "127.0.0.1";
  const portText = (env.PORT ?? "").trim() || "3000";
  if (!/^\d+$/.test(portText) || Number(portText) < 1 || Number(portText) > 65535)
    fail("PORT", `must be between 1 and 65535, got "${portText.slice(0, 20)}"`);
  const port = Number(portText);
  const loopback = host === "localhost" || host === "::1" || host === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(host);
  if (!loopback && !env.INFLIGHT_AUTH_TOKEN)
    fail("HOST", `"${host}" is not a loopback address: set INFLIGHT_AUTH_TOKEN to serve beyond this machine`);
  const bindHost = host.replace(/^\[(.*)\]$/, "$1");
  const url = `http://${bindHost.includes(":") ? `[${bindHost}]` : bindHost}:${port}`;
  const quiet = /^(0|false|off|no)$/i.test(env.INFLIGHT_LOG ?? "");

  // The project folder, wherever this is started from (the demo's data and
  // Next's build are found relative to it).
  const root = fileURLToPath(new URL("..", import.meta.url)).replace(/\/$/, "");
  process.chdir(root);
  // --no-build: serve the build that is there (the integration tests start
  // several servers at once and must not build concurrently).
  if (build) await buildIfNeeded(root);
  else if (!existsSync(path.join(root, ".next", "BUILD_ID"))) {
    console.error("inflight: no build in .next: run `npm run build` (npm start and npm test build when needed)");
    process.exit(1);
  }

  const require = createRequire(path.join(root, "package.json"));
  const problem = stampProblem(root, require("next/package.json").version);
  if (problem) {
    console.error(`inflight: could not start: ${problem}`);
    process.exit(1);
  }

  // Told before anything starts (no PostgreSQL to stop yet); listen() below
  // still handles the race and every other listen error.
  if (portTaken(bindHost, port)) {
    console.error(`inflight: cannot listen on ${url}: the port is in use (EADDRINUSE)`);
    process.exit(1);
  }

  // What `next start` sets up for its server; NEXT_MANUAL_SIG_HANDLE in case a
  // part of Next ever installs its exit-at-once handlers in this process too.
  env.NODE_ENV = "production";
  env.NEXT_MANUAL_SIG_HANDLE = "true";
  env.HOST = host;
  env.PORT = portText;

  const next = require("next");
  const app = next({ dev: false, dir: root, hostname: bindHost, port });
  await app.prepare();

  // register(): lib/boot runs here, and exits the process on a bad configuration.
  const RUNTIME = Symbol.for("inflight.runtime"); // where lib/runtime.ts keeps what boot() made
  let registration = null;
  try {
    registration = require("next/dist/server/lib/router-utils/instrumentation-globals.external.js").ensureInstrumentationRegistered;
  } catch {
    // A later Next that moved it: wait below for boot() to have run instead.
  }
  try {
    if (registration) await registration(root, ".next");
    for (const until = Date.now() + 60_000; !globalThis[RUNTIME] && Date.now() < until;) await new Promise((r) => setTimeout(r, 10));
  } catch (err) {
    console.error(`inflight: could not start: ${String(err?.message ?? err).split("\n")[0]}`);
    process.exit(1);
  }
  // Its absence means register() did not boot inflight (a build without instrumentation, say).
  if (!globalThis[RUNTIME]) {
    console.error("inflight: could not start: instrumentation's register() did not boot inflight (is .next a build of this app?)");
    process.exit(1);
  }

  const handle = app.getRequestHandler();
  const inflight = globalThis[RUNTIME];
  const server = http.createServer(async (req, res) => {
    // The client's address, for the per-client limits (lib/server/http/gate.ts
    // CLIENT_HEADER): always the socket's, whatever the client sent as that header.
    const client = req.socket.remoteAddress ?? "unknown";
    req.headers["x-inflight-client"] = client;
    try {
      // The SSE streams are served here, before Next's pipeline (lib/server/http/direct-stream.ts).
      if (await inflight.serveStream(req, res, client)) return;
      await handle(req, res);
    } catch (err) {
      console.error(`inflight: failed to handle ${req.method} ${req.url}: ${err?.stack ?? err}`);
      if (!res.headersSent) {
        res.statusCode = 500;
        res.end("Internal Server Error");
      } else res.destroy();
    }
  });

  server.on("error", (err) => {
    console.error(
      `inflight: cannot listen on ${url}: ${err.code ?? err.message}${err.code === "EADDRINUSE" ? " (the port is in use)" : ""}`,
    );
    // inflight has booted (collectors, maybe the embedded PostgreSQL): stop it
    // through its own SIGTERM handler, and make the exit code say it failed.
    process.on("exit", () => (process.exitCode = 1));
    setTimeout(() => process.exit(1), 20_000).unref();
    process.kill(process.pid, "SIGTERM");
  });

  server.listen(port, bindHost, () => {
    // As `next start` does: the origin Next uses when it forwards server actions.
    env.__NEXT_PRIVATE_ORIGIN = url;
    if (!quiet) console.log(`[inflight] ready on ${url}`);
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  await start({ build: !process.argv.includes("--no-build") });
