// track_io_timing and pg_stat_statements versions, on PostgreSQL 18s of
// the tests' own.
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmbedded, type EmbeddedServer } from "../demo/embedded";
import { connect, evictFromPageCache, waitFor } from "../../../test/support/pg";

import { watching } from "../../../test/support/watch";

describe("track_io_timing and pg_stat_statements versions (own PostgreSQL 18)", () => {
  let root: string | null = null;
  let server: EmbeddedServer;
  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), "inflight-queries-"));
    // mkdtemp makes a 0700 folder; the postgres user must pass through it.
    chmodSync(root, 0o755);
    server = await startEmbedded({ dataDir: path.join(root, "pg"), log: () => undefined });
  });
  afterAll(async () => {
    await server?.stop("fast");
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it("read time is unknown (null), not zero, and the note says how to turn it on", async () => {
    const client = await connect(server.superuserUrl("postgres"), "queries-timing-off");
    const w = await watching(server.monitorUrl("postgres"), 50);
    try {
      await client.query("ALTER SYSTEM SET track_io_timing = off");
      await client.query("SELECT pg_reload_conf()");
      await waitFor("track_io_timing off read", () => w.collector.window.settings.track_io_timing?.setting === "off", 7_000);
      await client.query("CREATE TABLE timing_probe AS SELECT g AS id, repeat('x', 500) AS pad FROM generate_series(1, 100000) AS g");
      await evictFromPageCache(client, server.dataDir, "timing_probe");
      await client.query("SELECT count(*) FROM timing_probe WHERE pad LIKE '%y%'");
      const stat = await waitFor(
        "the scan's figures",
        () => w.collector.window.statements.find((s) => s.query.includes("FROM timing_probe WHERE pad LIKE")),
        15_000,
      );
      expect(stat.sharedBlksRead).toBeGreaterThan(0);
      expect(stat.readTime).toBeNull();
      expect(w.collector.window.statements.every((s) => s.readTime === null)).toBe(true);
      expect(w.collector.window.statementsNote).toBe(
        "track_io_timing is off: read time is unknown, not zero. Turn it on: ALTER SYSTEM SET track_io_timing = on; SELECT pg_reload_conf();",
      );
      expect(w.collector.window.checks.find((c) => c.id === "track_io_timing")?.status).toBe("note");
    } finally {
      await w.stop();
      await client.end();
    }
  });
  /** Reinstalls pg_stat_statements at `version` in a schema off the monitoring role's search_path. */
  async function reinstall(client: pg.Client, version: string, usage: boolean): Promise<void> {
    await client.query("DROP EXTENSION IF EXISTS pg_stat_statements");
    await client.query('CREATE SCHEMA IF NOT EXISTS "Stats ext"');
    await client.query(`CREATE EXTENSION pg_stat_statements VERSION '${version}' SCHEMA "Stats ext"`);
    await client.query(usage ? 'GRANT USAGE ON SCHEMA "Stats ext" TO pg_monitor' : 'REVOKE USAGE ON SCHEMA "Stats ext" FROM pg_monitor');
  }

  it("reads pg_stat_statements 1.10 (blk_read_time) from a schema off the search_path", async () => {
    const client = await connect(server.superuserUrl("postgres"), "queries-pgss-1.10");
    try {
      await client.query("ALTER SYSTEM RESET track_io_timing");
      await client.query("SELECT pg_reload_conf()");
      await reinstall(client, "1.10", true);
      const w = await watching(server.monitorUrl("postgres"), 50);
      try {
        expect(w.collector.info().capabilities?.statStatements).toBe("1.10");
        await waitFor("track_io_timing on again", () => w.collector.window.settings.track_io_timing?.setting === "on", 7_000);
        await evictFromPageCache(client, server.dataDir, "timing_probe");
        await client.query("SELECT count(*) FROM timing_probe WHERE pad LIKE '%z%'");
        const stat = await waitFor(
          "the scan's figures",
          () => w.collector.window.statements.find((s) => s.query.includes("FROM timing_probe WHERE pad LIKE")),
          15_000,
        );
        expect(stat.sharedBlksRead).toBeGreaterThan(0);
        expect(stat.readTime).toBeGreaterThan(0);
        expect(w.collector.window.statementsNote).toBeNull();
      } finally {
        await w.stop();
      }
    } finally {
      await client.end();
    }
  });

  it("says why when pg_stat_statements cannot be read, and keeps sampling", async () => {
    const client = await connect(server.superuserUrl("postgres"), "queries-pgss-denied");
    try {
      await reinstall(client, "1.12", false);
      const w = await watching(server.monitorUrl("postgres"), 50);
      try {
        await waitFor(
          "a note",
          () => w.collector.window.statementsNote?.startsWith("pg_stat_statements 1.12 cannot be read: permission denied for schema"),
          15_000,
        );
        const samples = w.collector.stats.samples;
        await waitFor("more samples", () => w.collector.stats.samples > samples + 5);
        expect(w.collector.info().status).toBe("up");
      } finally {
        await w.stop();
      }
      await reinstall(client, "1.7", true);
      const old = await watching(server.monitorUrl("postgres"), 50);
      try {
        await waitFor("a note", () => old.collector.window.statementsNote?.startsWith("pg_stat_statements 1.7 is older than 1.8"), 15_000);
      } finally {
        await old.stop();
      }
    } finally {
      await client.end();
    }
  });
});
