// Issue 13: `npm run lab` against a PostgreSQL 18 the user controls (here
// one of this file's own, restarted with pg_ctl): it prints the table, and
// whatever happens (an SQL error, a method that will not start, Ctrl-C) the
// server ends on the io_method it started with. Few runs: the behaviour is
// under test, not the figures.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import path from "node:path";
import { NO_EXPLAIN_IO } from "../lib/model/lab/explain-io";
import { startOwnPg, type OwnPg } from "./support/own-pg";
import { restartCommand, startLab, stopCommand } from "./support/lab";
import { waitFor } from "./support/pg";

const DROP = 'for f in {files}; do dd if="$f" iflag=nocache count=0 status=none; done';

describe("npm run lab (own PostgreSQL 18)", () => {
  let own: OwnPg;
  let url: string;

  async function method(): Promise<{ running: string; autoConf: string }> {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      const running = (await c.query<{ m: string }>("SELECT current_setting('io_method') AS m")).rows[0].m;
      return { running, autoConf: readFileSync(path.join(own.server.dataDir, "postgresql.auto.conf"), "utf8") };
    } finally {
      await c.end();
    }
  }

  beforeAll(async () => {
    own = await startOwnPg();
    url = own.server.superuserUrl("postgres");
  });
  afterAll(async () => own?.dispose());

  it("makes the demo table, runs sync and worker in turns, prints the table and writes JSON and CSV", async () => {
    const dir = path.dirname(own.server.dataDir);
    const lab = startLab([
      "--url",
      url,
      "--seed-mb",
      "16",
      "--restart",
      restartCommand(own.server),
      "--drop-cache",
      DROP,
      "--methods",
      "sync,worker",
      "--runs",
      "2",
      "--json",
      `${dir}/lab.json`,
      "--csv",
      `${dir}/lab.csv`,
    ]);
    expect(await lab.exited).toBe(0);
    const out = lab.stdout();
    expect(out).toMatch(/^the demo's sequential scan: SELECT count\(\*\)/);
    expect(out).toMatch(/^io_method\s+runs\s+median\s+spread \(min–max\)\s+read wait\s+read share\s+blocks read\s+against the first$/m);
    expect(out).toMatch(/^sync\s+2\s+\S+ ms/m);
    expect(out).toMatch(/^worker\s+2\s+\S+ ms .* (\d+% (faster|slower) than|as fast as) sync \((outside|within) the spread\)$/m);
    // 18's EXPLAIN has no IO option: the table (its header above ends at "against the first") says its columns come with 19.
    expect(out).toContain(`\n${NO_EXPLAIN_IO}\n`);
    expect(lab.stderr()).toMatch(/io_method is back to worker/);
    const report = JSON.parse(readFileSync(`${dir}/lab.json`, "utf8"));
    expect(report).toMatchObject({ explainIo: false, serverVersion: expect.stringMatching(/^18\./) });
    expect(report.runs.map((r: { method: string }) => r.method)).toEqual(["sync", "worker", "worker", "sync"]);
    expect(report.explains).toHaveLength(4);
    expect(readFileSync(`${dir}/lab.csv`, "utf8").trim().split("\n")).toHaveLength(5);
    expect(await method()).toMatchObject({ running: "worker" });
    expect((await method()).autoConf).not.toMatch(/io_method/);
  });

  it("refuses what is not one read-only SELECT, naming the option, before any restart", async () => {
    const lab = startLab(["--url", url, "--restart", "exit 9", "--sql", "DELETE FROM public.readings"]);
    expect(await lab.exited).toBe(2);
    expect(lab.stderr().trim()).toBe("lab: --sql: must be one read-only SELECT, not DELETE");
  });

  it("an SQL error in a run is one line, and io_method is back", async () => {
    const lab = startLab([
      "--url",
      url,
      "--restart",
      restartCommand(own.server),
      "--drop-cache",
      DROP,
      "--sql",
      "SELECT count(*) FROM public.readings WHERE 1 / (id - id) = 0",
      "--methods",
      "sync",
      "--runs",
      "1",
    ]);
    expect(await lab.exited).toBe(1);
    expect(lab.stderr()).toMatch(/^lab: run 1 of 1 \(round 1 of 1, sync\): division by zero$/m);
    expect(lab.stderr()).toMatch(/io_method is back to worker/);
    expect(await method()).toMatchObject({ running: "worker" });
  });

  it("a method that leaves the server down: postgresql.auto.conf is put right and the server started as it was", async () => {
    // The "restart" into sync stops the server and fails, as an io_method that cannot start would.
    const restart = `if [ {method} = sync ]; then ${stopCommand(own.server)}; echo "no sync here" >&2; exit 7; fi; ${restartCommand(own.server)}`;
    const lab = startLab(["--url", url, "--restart", restart, "--drop-cache", DROP, "--methods", "worker,sync", "--runs", "1"]);
    expect(await lab.exited).toBe(1);
    expect(lab.stderr()).toMatch(
      /^lab: run 2 of 2 \(round 1 of 1, sync\): io_method = sync did not start: the command exited 7: no sync here$/m,
    );
    expect(lab.stdout()).toMatch(/^worker\s+1\s/m);
    expect(await method()).toMatchObject({ running: "worker" });
    expect((await method()).autoConf).not.toMatch(/io_method/);
  });

  it("Ctrl-C stops it, and io_method is back before it exits", async () => {
    const lab = startLab([
      "--url",
      url,
      "--restart",
      restartCommand(own.server),
      "--drop-cache",
      DROP,
      "--methods",
      "sync",
      "--runs",
      "20",
    ]);
    await waitFor("the first run", () => /\[lab\] {3}sync: /.test(lab.stderr()), 60_000);
    lab.signal("SIGINT");
    expect(await lab.exited).toBe(130);
    expect(lab.stderr()).toMatch(/Ctrl-C: stopping; putting io_method back first/);
    expect(lab.stderr()).toMatch(/^lab: stopped before the end, after \d+ of 20 runs$/m);
    expect(lab.stderr()).toMatch(/io_method is back to worker/);
    expect(await method()).toMatchObject({ running: "worker" });
  });
});
