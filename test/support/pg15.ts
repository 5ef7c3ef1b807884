// A throwaway PostgreSQL 15 (Debian's binaries) for tests of a server
// without asynchronous I/O: initdb into a temp dir owned by the OS user
// postgres, started on a free loopback port, removed by stop().
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { chmod, chown, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { resolveRunAs, run, summarize } from "../../lib/server/demo/process";
import { freePort } from "./server";

export const PG15_BIN = "/usr/lib/postgresql/15/bin";

export interface Pg15 {
  port: number;
  superuserUrl(database?: string): string;
  stop(): Promise<void>;
}

export function pg15Available(): boolean {
  return existsSync(path.join(PG15_BIN, "pg_ctl"));
}

export async function startPg15(settings: Record<string, string> = {}): Promise<Pg15> {
  const runAs = await resolveRunAs(() => undefined);
  const root = await mkdtemp(path.join(os.tmpdir(), "inflight-pg15-"));
  await chmod(root, 0o755);
  const dataDir = path.join(root, "data");
  const sockets = path.join(root, "sock");
  const password = randomBytes(12).toString("hex");
  const pwfile = path.join(root, "pw");
  await writeFile(pwfile, `${password}\n`, { mode: 0o600 });
  if (runAs) {
    await chown(root, runAs.uid, runAs.gid);
    await chown(pwfile, runAs.uid, runAs.gid);
  }
  const as = { runAs, cwd: root };
  const init = await run(
    path.join(PG15_BIN, "initdb"),
    ["-D", dataDir, "-U", "postgres", "--auth=scram-sha-256", `--pwfile=${pwfile}`, "-E", "UTF8", "--locale=C"],
    as,
  );
  if (init.code !== 0) throw new Error(`initdb 15 failed: ${summarize(init)}`);
  await run("/bin/mkdir", ["-p", sockets], as);
  const port = await freePort();
  const opts = [
    `-p ${port}`,
    `-k ${sockets}`,
    "-c listen_addresses=127.0.0.1",
    ...Object.entries(settings).map(([k, v]) => `-c ${k}=${v}`),
  ].join(" ");
  const start = await run(
    path.join(PG15_BIN, "pg_ctl"),
    ["start", "-D", dataDir, "-l", path.join(root, "log"), "-w", "-t", "60", "-s", "-o", opts],
    as,
  );
  if (start.code !== 0) {
    await rm(root, { recursive: true, force: true });
    throw new Error(`PostgreSQL 15 did not start: ${summarize(start)}`);
  }
  return {
    port,
    superuserUrl: (database = "postgres") => `postgres://postgres:${password}@127.0.0.1:${port}/${database}`,
    async stop() {
      await run(path.join(PG15_BIN, "pg_ctl"), ["stop", "-D", dataDir, "-m", "immediate", "-w", "-s"], as);
      await rm(root, { recursive: true, force: true });
    },
  };
}
