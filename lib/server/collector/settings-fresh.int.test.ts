// Issue 19: a reload is on the page within a second (pg_conf_load_time()
// moves on the every-tick sample, pg_settings is read at once), a pending
// io_method is named with its value, and a restart made before inflight
// connected is named from the history on disk. Against a PostgreSQL 18 of
// this file's own (it ALTER SYSTEMs and restarts), at the shipped 30 s
// settings cadence, so only the reload can explain a read within a second.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Finding } from "../../schemas/findings";
import { formatClock } from "../../format";
import { HistoryStore } from "../history/store";
import { startOwnPg, type OwnPg } from "../../../test/support/own-pg";
import { connect, waitFor, TEST_COLLECTOR } from "../../../test/support/pg";
import { Collector } from "./collector";

/** What the page promises after a reload: the settings, and pending_restart, within a second. */
const RELOAD_SEEN_MS = 1000;

describe("settings fresh after a reload, pending values, the restart before inflight (own PostgreSQL 18)", () => {
  let own: OwnPg;
  let admin: pg.Client;
  let dir: string;
  let history: HistoryStore;
  const collectors: { c: Collector; unsubscribe: () => void }[] = [];

  /** A collector as the app runs one: one viewer, the shipped 30 s settings cadence, the history on disk. */
  async function watch(url: string, name = "own"): Promise<Collector> {
    const c = new Collector({
      id: name,
      name,
      demo: false,
      watchedSampleMs: 50,
      idleSampleMs: 1000,
      windowMs: 10 * 60_000,
      ...TEST_COLLECTOR,
      cadences: { ...TEST_COLLECTOR.cadences, settingsMs: 30_000 },
      history: history.forTarget(name),
    });
    collectors.push({ c, unsubscribe: c.feed.subscribe(() => undefined) });
    c.start(url);
    await waitFor(
      "collector up with settings",
      () => c.info().status === "up" && c.window.settings.io_method && c.window.lastTick(),
      15_000,
    );
    return c;
  }

  async function reload(sql: string): Promise<number> {
    await admin.query(sql);
    await admin.query("SELECT pg_reload_conf()");
    return Date.now();
  }

  const finding = (c: Collector, rule: Finding["rule"]) => c.window.findings.findings.find((f) => f.rule === rule);

  beforeAll(async () => {
    own = await startOwnPg();
    admin = await connect(own.server.superuserUrl("postgres"), "settings-fresh-admin");
    dir = mkdtempSync(path.join(os.tmpdir(), "inflight-settings-fresh-"));
    history = HistoryStore.open({
      file: path.join(dir, "history.db"),
      retentionMs: 24 * 3_600_000,
      maxBytes: 64 * 1024 * 1024,
      log: () => undefined,
    });
  }, 180_000);

  afterAll(async () => {
    for (const { c, unsubscribe } of collectors) {
      unsubscribe();
      await c.stop();
    }
    history?.close();
    await admin?.end();
    await own?.dispose();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("io_workers = 1 and a reload: the settings, the ticks' configured io workers and the check within a second", async () => {
    const c = await watch(own.server.monitorUrl("postgres"));
    expect(c.window.settings.io_workers.setting).toBe("3");
    await waitFor("three io workers alive", () => c.window.lastTick()?.workers.alive === 3, 5_000);
    const before = c.window.lastSeq;
    const at = await reload("ALTER SYSTEM SET io_workers = 1");
    await waitFor(
      "io_workers 1 read",
      () => c.window.settings.io_workers?.setting === "1" && c.window.lastTick()?.workers.configured === 1,
      RELOAD_SEEN_MS,
      10,
    );
    expect(Date.now() - at).toBeLessThanOrEqual(RELOAD_SEEN_MS);
    // The panel's "(io_workers = N)" and its dashed line read the ticks' configured workers.
    expect(c.window.lastTick()!.workers.configured).toBe(1);
    // The postmaster stops the extra workers after it signals the reload to every backend, and
    // the sample that sees the reload reads the settings before its tick is made: no tick carries
    // fewer workers alive than before beside the io_workers of before, and, once io_workers 1 is
    // in a tick, never 3 again.
    await waitFor("one io worker alive", () => c.window.lastTick()?.workers.alive === 1, 5_000);
    const after = c.window.ticksSince(before).map((t) => t.workers);
    expect(after.filter((w) => w.alive < 3 && w.configured === 3)).toEqual([]);
    expect(after.slice(after.findIndex((w) => w.configured === 1)).filter((w) => w.configured !== 1)).toEqual([]);
    await waitFor(
      "the io_workers check on one worker",
      () => c.window.checks.find((x) => x.id === "io_workers")?.message.includes("io_workers = 1"),
      5_000,
    );
  });

  it("io_method = 'sync' and a reload: pending within a second, its value named (the only other one this build offers, pg_file_settings being denied)", async () => {
    const c = collectors[0].c;
    const at = await reload("ALTER SYSTEM SET io_method = 'sync'");
    await waitFor("io_method pending", () => c.window.settings.io_method?.pendingRestart, RELOAD_SEEN_MS, 10);
    expect(Date.now() - at).toBeLessThanOrEqual(RELOAD_SEEN_MS);
    const f = await waitFor("restart_pending", () => finding(c, "restart_pending"), 2_000);
    expect(f.text, f.text).toMatch(
      /io_method worker in force; the next restart brings sync \(the only other value this build offers \(sync, worker\)\): reads will be synchronous: a running scan's reads will wait one by one; unless the change was undone since/,
    );
    expect(f.text).toMatch(/PostgreSQL keeps pending_restart set after a change is undone/);
    const check = c.window.checks.find((x) => x.id === "pending_restart");
    // The check in the finding's state, its message the finding's own sentence after a brief citation.
    expect(check).toMatchObject({ status: f.severity, message: `A setting waits for a restart (see the finding above). ${f.text}` });
  });

  it("a superuser's collector reads the value from pg_file_settings; an undone change (ALTER SYSTEM RESET) is never said to be coming", async () => {
    const su = await watch(own.server.superuserUrl("postgres"), "own-superuser");
    const f = await waitFor(
      "restart_pending from pg_file_settings",
      () => finding(su, "restart_pending")?.text.includes("(pg_file_settings)") && finding(su, "restart_pending"),
      5_000,
    );
    expect(f.text).toMatch(/io_method worker in force; the next restart brings sync \(pg_file_settings\): reads will be synchronous/);
    await reload("ALTER SYSTEM RESET io_method");
    // Undone: PostgreSQL clears the flag (the files hold the value in force again) or keeps it;
    // either way, within a second nothing says the next restart brings sync.
    const undone = await waitFor(
      "the change undone",
      () => !finding(su, "restart_pending")?.text.includes("brings sync") && (finding(su, "restart_pending") ?? "cleared"),
      RELOAD_SEEN_MS,
      10,
    );
    if (undone !== "cleared")
      expect(undone.text).toMatch(
        /io_method worker in force, and the next restart brings worker again \((pg_file_settings|the built-in default: no configuration file sets it now)\): the change was undone/,
      );
    else expect(su.window.checks.find((x) => x.id === "pending_restart")?.status).toBe("pass");
    await reload("ALTER SYSTEM SET io_method = 'sync'");
    await waitFor("sync pending again", () => finding(su, "restart_pending")?.text.includes("brings sync"), RELOAD_SEEN_MS);
  });

  it("names a restart made while inflight was not running, from the history, and again when it was already recorded", async () => {
    for (const { c, unsubscribe } of collectors.splice(0)) {
      unsubscribe();
      await c.stop();
    }
    await admin.end();
    await own.server.restart();
    admin = await connect(own.server.superuserUrl("postgres"), "settings-fresh-admin");
    const start = (await admin.query<{ ms: number }>("SELECT (extract(epoch FROM pg_postmaster_start_time()) * 1000)::float8 AS ms"))
      .rows[0].ms;
    const clock = formatClock(start);
    for (const round of ["first seen by the history", "already recorded"]) {
      const c = await watch(own.server.monitorUrl("postgres"));
      const f = await waitFor(`restart_applied (${round})`, () => finding(c, "restart_applied"), 5_000);
      expect(f.text, round).toMatch(new RegExp(`^Server started ${clock}: that restart changed io_method worker -> sync, in force`));
      expect(f.evidence).toMatchObject({ at: start, changes: "io_method worker -> sync" });
      expect(finding(c, "settings_unchanged")).toBeUndefined();
      const { c: done, unsubscribe } = collectors.pop()!;
      unsubscribe();
      await done.stop();
    }
  });

  it("a restart that changed nothing, before inflight connected: said so, with the server's start", async () => {
    await admin.end();
    await own.server.restart();
    admin = await connect(own.server.superuserUrl("postgres"), "settings-fresh-admin");
    const c = await watch(own.server.monitorUrl("postgres"));
    const f = await waitFor("settings_unchanged", () => finding(c, "settings_unchanged"), 5_000);
    expect(f.text).toMatch(
      /^Server started \d\d:\d\d:\d\d: that restart changed no I\/O setting; none waits for a restart\. io_method sync\.$/,
    );
  });
});
