// Starts one embedded PostgreSQL 18 for the whole integration run, with a
// demo table larger than shared_buffers, and hands its URLs to the tests.
import { rm } from "node:fs/promises";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { startEmbedded, type EmbeddedServer } from "../demo/embedded";
import { ensureDemoDatabase } from "../demo/seed";

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
  }
}

let server: EmbeddedServer | null = null;

export default async function setup(project: TestProject) {
  const dataDir = path.resolve(".inflight/test-pg");
  // A fresh cluster each run: tests change io settings and restart it.
  await rm(dataDir, { recursive: true, force: true });
  await rm(`${dataDir}.secrets.json`, { force: true });
  const log = (line: string) => console.log(`[test-pg] ${line}`);
  server = await startEmbedded({ dataDir, log });
  const { database, table } = await ensureDemoDatabase(server, { tableMb: 96, log });
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
  };
}
