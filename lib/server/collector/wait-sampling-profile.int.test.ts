// pg_wait_sampling's profile when it costs more than it spares (issue 44), on
// Debian's PostgreSQL 18 with Debian's postgresql-18-pg-wait-sampling (1.1,
// which keeps an entry per pid, event and query until the profile is reset):
// short sessions grow it until a read costs the server more than the polls
// it spares, judged by the server's own means (pg_stat_statements, for a role
// of the test's own); inflight goes back to the polls and says why, samples
// on, and reads the profile again once it is reset.
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runQuery } from "../pg/run";
import { DEAR_FACTOR, POLLS_SPARED } from "./wait-sampler";
import { connect, waitFor } from "../../../test/support/pg";
import { watchPgws } from "../../../test/support/watch";
import { ioUringAvailable, startIoUringPg, WAIT_SAMPLING_PRELOAD, type IoUringPg } from "../../../test/support/iouring";

const io = await ioUringAvailable();
if (!io.ok) console.log(`[wait sampling] not run, as asked: ${io.why}`);

const MONITOR = "pgws_monitor";
const JUDGE = "pgws_judge";

describe.skipIf(!io.ok)("pg_wait_sampling's profile grown dearer than the polls (Debian's PostgreSQL 18)", () => {
  let server: IoUringPg;
  let admin: pg.Client;

  beforeAll(async () => {
    server = await startIoUringPg({ settings: { ...WAIT_SAMPLING_PRELOAD, io_method: "worker" } });
    admin = await connect(server.superuserUrl(), "pgws-admin");
    await admin.query("CREATE EXTENSION pg_wait_sampling");
    for (const role of [MONITOR, JUDGE]) await admin.query(`CREATE ROLE ${role} LOGIN PASSWORD 'pgws' IN ROLE pg_monitor`);
  }, 600_000);

  afterAll(async () => {
    await admin?.end();
    await server?.stop();
  });

  const urlOf = (role: string) => {
    const url = new URL(server.superuserUrl());
    url.username = role;
    url.password = "pgws";
    return url.toString();
  };

  const watch = () => watchPgws(urlOf(MONITOR), { profileRetryMs: 15_000 });

  it("a profile grown by short sessions until a read costs more than the polls it spares: back to the polls, said with its entries and the reset, and back to the profile once it is reset", async () => {
    // The server's own figures judge it: the mean of a read of each, from pg_stat_statements, for calls of the test's own role.
    const judge = await connect(urlOf(JUDGE), "pgws-judge");
    const costs = async () => {
      await admin.query(`SELECT pg_stat_statements_reset((SELECT oid FROM pg_roles WHERE rolname = '${JUDGE}'))`);
      for (let i = 0; i < 5; i++) {
        await runQuery(judge, "wait_profile", { extSchema: "public" });
        await runQuery(judge, "activity", { values: [[], []] });
      }
      const { rows } = await admin.query(
        `SELECT query ~ 'inflight:wait_profile' AS profile, mean_exec_time FROM pg_stat_statements
          WHERE userid = (SELECT oid FROM pg_roles WHERE rolname = '${JUDGE}') AND query ~ 'inflight:(wait_profile|activity)'`,
      );
      const ms = (profile: boolean) => Number(rows.find((r) => r.profile === profile)?.mean_exec_time);
      return { profileMs: ms(true), activityMs: ms(false) };
    };
    const w = watch();
    try {
      await waitFor("up, on the profile", () => w.collector.info().waitSampler?.source === "pg_wait_sampling", 15_000);
      // Short sessions, each sampled while it sleeps: pg_wait_sampling 1.1 keeps their entries until a reset.
      const session = async () => {
        const c = await connect(server.superuserUrl(), "pgws-short");
        await c.query("SELECT pg_sleep(0.02)");
        await c.end();
      };
      let sessions = 0;
      const fellBack = await waitFor(
        "back to the polls, the profile too dear",
        async () => {
          const i = w.collector.info();
          if (i.waitSampler?.source === "pg_stat_activity") return i;
          await Promise.all(Array.from({ length: 16 }, session));
          sessions += 16;
          return null;
        },
        240_000,
        0,
      );
      const dear = await costs();
      console.log(
        `[wait sampling] after ${sessions} short sessions: ${fellBack.waitSampler!.note}; the server's means: a profile read ${dear.profileMs.toFixed(2)} ms, a poll ${dear.activityMs.toFixed(3)} ms`,
      );
      expect(dear.profileMs).toBeGreaterThan(DEAR_FACTOR * POLLS_SPARED * dear.activityMs);
      expect(fellBack.waitSampler).toMatchObject({ source: "pg_stat_activity", text: "wait events from pg_stat_activity, every 100 ms" });
      expect(fellBack.waitSampler!.note).toMatch(
        /^pg_wait_sampling's profile holds [\d,]+ entries .*more than twice the 6 polls of pg_stat_activity a second it spares .*SELECT public\.pg_wait_sampling_reset_profile\(\) empties it/,
      );
      const entries = Number(/holds ([\d,]+) entries/.exec(fellBack.waitSampler!.note!)![1].replace(/,/g, ""));
      expect(entries).toBeGreaterThan(sessions);
      // Sampling goes on, on the polls.
      const ticks = w.collector.info().samples;
      await waitFor("ten more samples", () => w.collector.info().samples >= ticks + 10, 10_000);
      expect(w.collector.info().aspects.find((a) => a.aspect === "sampling")?.state).toBe("ok");

      await admin.query("SELECT public.pg_wait_sampling_reset_profile()");
      await waitFor("back on the profile after its retry", () => w.collector.info().waitSampler?.source === "pg_wait_sampling", 40_000);
      const cheap = await costs();
      expect(cheap.profileMs).toBeLessThan(DEAR_FACTOR * POLLS_SPARED * cheap.activityMs);
    } finally {
      await w.stop();
      await judge.end();
    }
  }, 360_000);
});
