// Issue 40: a reload is a reload. After a restart into io_method worker,
// io_workers = 1 by ALTER SYSTEM and pg_reload_conf() is said as the
// reload's (with the server's own pg_conf_load_time()), never as the
// restart's. Against a PostgreSQL 18 of this file's own (it restarts).
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Finding } from "../../schemas/findings";
import { formatClock } from "../../format";
import { startOwnPg, type OwnPg } from "../../../test/support/own-pg";
import { connect, waitFor, TEST_COLLECTOR } from "../../../test/support/pg";
import { settingsPayload } from "../payloads/window";
import { SettingsPayload } from "../../schemas/window";
import { Collector } from "./collector";

describe("a reload after a restart (own PostgreSQL 18)", () => {
  let own: OwnPg;
  let admin: pg.Client;
  let c: Collector;
  let unsubscribe: () => void = () => undefined;

  const finding = (rule: Finding["rule"]) => c.window.findings.findings.find((f) => f.rule === rule);

  beforeAll(async () => {
    own = await startOwnPg({ io_method: "sync" });
    admin = await connect(own.server.superuserUrl("postgres"), "reloads-admin");
    c = new Collector({
      id: "own",
      name: "own",
      demo: false,
      watchedSampleMs: 50,
      idleSampleMs: 1000,
      windowMs: 10 * 60_000,
      ...TEST_COLLECTOR,
    });
    unsubscribe = c.feed.subscribe(() => undefined);
    c.start(own.server.monitorUrl("postgres"));
    await waitFor(
      "collector up with settings",
      () => c.info().status === "up" && c.window.settings.io_method && c.window.lastTick(),
      15_000,
    );
  }, 180_000);

  afterAll(async () => {
    unsubscribe();
    await c?.stop();
    await admin?.end();
    await own?.dispose();
  });

  it("the restart to io_method worker counts its three io workers", async () => {
    expect(c.window.settings.io_method.setting).toBe("sync");
    await admin.query("ALTER SYSTEM SET io_method = 'worker'");
    await admin.end();
    await own.server.restart();
    admin = await connect(own.server.superuserUrl("postgres"), "reloads-admin");
    await waitFor("the restart recorded", () => c.window.restarts.length === 1, 15_000);
    const f = await waitFor(
      "restart_applied with three io workers",
      () => finding("restart_applied")?.text.includes("3 io workers alive") && finding("restart_applied"),
      10_000,
    );
    expect(f.text).toMatch(/that restart changed io_method sync -> worker, in force \(3 io workers alive; reads handed to io workers\)/);
  });

  it("io_workers = 1 and a reload: a reload_applied finding at pg_conf_load_time(), and the restart's finding does not claim it", async () => {
    try {
      await admin.query("ALTER SYSTEM SET io_workers = 1");
      await admin.query("SELECT pg_reload_conf()");
      const reload = await waitFor("the reload recorded", () => c.window.reloads.at(-1), 5_000);
      expect(reload.changes).toEqual([{ name: "io_workers", before: "3", after: "1" }]);
      // The page's settings event carries it (its settings panel lists it), through the wire schema.
      expect(SettingsPayload.parse(JSON.parse(JSON.stringify(settingsPayload(c.window)))).reloads).toEqual([reload]);
      // The server's own clock: this session's pg_conf_load_time() after the same reload (each backend stamps its own, ms apart).
      const { rows } = await admin.query<{ ms: number }>("SELECT (extract(epoch FROM pg_conf_load_time()) * 1000)::float8 AS ms");
      expect(Math.abs(reload.at - rows[0].ms)).toBeLessThan(1000);
      const f = await waitFor("reload_applied", () => finding("reload_applied"), 5_000);
      expect(f.severity).toBe("info");
      expect(f.text).toMatch(new RegExp(`^io_workers 3 -> 1 by a reload at ${formatClock(reload.at)}`));
      await waitFor(
        "one io worker alive, said by the reload's finding",
        () => finding("reload_applied")?.text.endsWith("; 1 io worker alive since."),
        5_000,
      );
      const restart = finding("restart_applied")!;
      expect(restart.text).toMatch(
        /^Server started \d\d:\d\d:\d\d: that restart changed io_method sync -> worker, in force \(reads handed to io workers\); none waits for a restart; since then, a reload at \d\d:\d\d:\d\d changed io_workers\.$/,
      );
      expect(restart.text).not.toMatch(/io workers alive|io_workers 3 -> 1/);
    } finally {
      await admin.query("ALTER SYSTEM RESET io_workers");
      await admin.query("SELECT pg_reload_conf()");
    }
    await waitFor("io_workers 3 again", () => c.window.settings.io_workers?.setting === "3", 5_000);
    expect(c.window.reloads.at(-1)?.changes).toEqual([{ name: "io_workers", before: "1", after: "3" }]);
  });
});
