// Before the e2e server starts: the demo's io settings back to the defaults.
// Its data folder (.inflight/e2e) is kept between runs so the 1 GB table is
// seeded once, and with it whatever ALTER SYSTEM the last run left (the
// what-changed spec ends on io_method = sync); the specs expect the demo as a
// newcomer first sees it, io_method = worker and 3 io workers.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const file = path.resolve(import.meta.dirname, "..", ".inflight", "e2e", "demo-pg", "postgresql.auto.conf");
if (existsSync(file)) {
  const lines = readFileSync(file, "utf8").split("\n");
  const kept = lines.filter((l) => !/^\s*(io_method|io_workers|io_min_workers|io_max_workers)\s*=/.test(l));
  if (kept.length !== lines.length) {
    // Written in place: the file keeps its owner (the postgres user when run as root).
    writeFileSync(file, kept.join("\n"));
    console.log(
      `[e2e] the demo's io settings reset to the defaults (${lines.length - kept.length} line(s) from ${path.relative(process.cwd(), file)})`,
    );
  }
}
