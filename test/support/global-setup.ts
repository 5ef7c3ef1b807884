// Starts one embedded PostgreSQL 18 for the whole integration run, with a
// demo table larger than shared_buffers, and hands its URLs to the tests.
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { startEmbedded, type EmbeddedServer } from "../../lib/server/demo/embedded";
import { ensureDemoDatabase } from "../../lib/server/demo/seed";

export interface TestPg {
  port: number;
  dataDir: string;
  superuserUrl: string;
  monitorUrl: string;
  database: string;
  table: string;
}

declare module "vitest" {
  export interface ProvidedContext {
    pg: TestPg;
    /** the history file of the run's test servers (never the project's .inflight/history.db) */
    historyFile: string;
  }
}

let server: EmbeddedServer | null = null;

export default async function setup(project: TestProject) {
  // A fresh cluster each run, in a folder of its own, so two runs on one
  // machine never share (or delete) each other's server.
  await mkdir(path.resolve(".inflight"), { recursive: true });
  const runDir = await mkdtemp(path.resolve(".inflight/test-run-"));
  const dataDir = path.join(runDir, "pg");
  const log = (line: string) => console.log(`[test-pg] ${line}`);
  server = await startEmbedded({ dataDir, log });
  const { database, table } = await ensureDemoDatabase(server, { tableMb: 96, log });
  project.provide("historyFile", path.join(runDir, "history.db"));
  project.provide("pg", {
    port: server.port,
    dataDir: server.dataDir,
    superuserUrl: server.superuserUrl(database),
    monitorUrl: server.monitorUrl(database),
    database,
    table,
  });
  return async () => {
    await server?.stop("fast");
    await rm(runDir, { recursive: true, force: true });
    // The server may have moved under the temp folder (a 0700 checkout).
    if (server && !server.dataDir.startsWith(runDir)) await rm(path.dirname(server.dataDir), { recursive: true, force: true });
  };
}
