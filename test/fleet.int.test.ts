// Several clusters from one server: each its own collector; one going down
// leaves the other sampling; the cadence follows the viewers; the export
// round-trips through the window's schema.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmbedded, type EmbeddedServer } from "../lib/server/demo/embedded";
import { FleetResponse, TargetsResponse } from "../lib/schemas/api";
import { WindowSnapshot } from "../lib/schemas/window";
import { connect, ownStatementCalls, waitFor } from "./support/pg";
import { startServer, type RunningServer } from "./support/server";
import { openSse, slotTicksArrived } from "./support/sse";

let dir: string;
let east: EmbeddedServer;
let west: EmbeddedServer;
let app: RunningServer;

async function targets() {
  const res = await fetch(`${app.url}/api/targets`);
  return TargetsResponse.parse(await res.json()).targets;
}
const byId = async (id: string) => (await targets()).find((t) => t.id === id)!;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "inflight-fleet-"));
  const log = () => undefined;
  [east, west] = await Promise.all([
    startEmbedded({ dataDir: path.join(dir, "east"), log }),
    startEmbedded({ dataDir: path.join(dir, "west"), log }),
  ]);
  app = await startServer({
    INFLIGHT_TARGETS: `east=${east.monitorUrl("postgres")},west=${west.monitorUrl("postgres")}`,
    INFLIGHT_SAMPLE_MS: "100",
    INFLIGHT_IDLE_SAMPLE_MS: "1000",
    // The cadence follows the viewers here, not the budget (budget.int.test.ts tests that): on two
    // loaded cores a sample can cost more than the default 5 ms/s affords at 10 a second, and the
    // budget would rightly stretch it (CI did, with two targets on one loaded server).
    INFLIGHT_BUDGET: "100",
  });
}, 120_000);

afterAll(async () => {
  await app?.stop();
  await Promise.all([east?.stop("fast"), west?.stop("fast")]);
  await rm(dir, { recursive: true, force: true });
});

describe("two targets at once", () => {
  it("watches both; one stopped mid-run is listed down while the other keeps going", async () => {
    await waitFor("both up", async () => (await targets()).every((t) => t.status === "up" && t.samples > 0), 20_000);
    expect((await targets()).map((t) => [t.id, t.ioMethod])).toEqual([
      ["east", "worker"],
      ["west", "worker"],
    ]);

    await west.stop("fast");
    const down = await waitFor("west down", async () => {
      const t = await byId("west");
      return t.status === "down" ? t : null;
    });
    expect(down.lastError).toBeTruthy();
    expect(down.statusSince).toBeGreaterThan(Date.now() - 60_000);
    const before = (await byId("east")).samples;
    await waitFor("east still sampling", async () => (await byId("east")).samples > before + 1, 5000);
    expect((await byId("east")).status).toBe("up");

    await west.start();
    await waitFor("west up again", async () => (await byId("west")).status === "up", 10_000);
  });

  it("gives the fleet page every target at a glance", async () => {
    const fleet = FleetResponse.parse(await (await fetch(`${app.url}/api/fleet`)).json());
    expect(fleet.targets.map((e) => e.target.id)).toEqual(["east", "west"]);
    for (const entry of fleet.targets) {
      expect(entry.spark).toHaveLength(60);
      expect(entry.spark.some((v) => v !== null)).toBe(true);
      expect(entry.inFlightNow).not.toBeNull();
      expect(entry.pendingRestarts).toEqual([]);
    }
  });

  it("samples fast only while someone watches", async () => {
    // The cadence by the test's clock and east's own pg_stat_statements (only this server's
    // inflight watches east): its wait-event sample's calls, and the ticks a viewer receives.
    const admin = await connect(east.superuserUrl("postgres"), "fleet-admin");
    const callsOver = async (ms: number) => {
      const before = await ownStatementCalls(admin, "activity");
      await new Promise((r) => setTimeout(r, ms));
      return (await ownStatementCalls(admin, "activity")) - before;
    };
    try {
      // Idle: one sample a second, 2 or 3 calls in 2 s (a burst of extra samples when a
      // statement starts adds a few; 10 a second would be 20).
      expect(await callsOver(2000)).toBeLessThan(8);
      const viewer = await openSse(`${app.url}/api/targets/east/stream`);
      try {
        expect(viewer.headers["content-type"]).toContain("text/event-stream");
        // The cadence changes at the next slot of the idle one: two ticks come within 300 ms.
        await viewer.waitFor((_, all) => {
          const ticks = all.filter((x) => x.event === "tick");
          return ticks.length > 1 && ticks.at(-1)!.at - ticks.at(-2)!.at < 300;
        }, 5000);
        const from = Date.now();
        const calls = await callsOver(2000);
        const to = Date.now();
        // 10 a second asked: 20 slots in 2 s; the idle cadence would give 2 or 3.
        const arrived = slotTicksArrived(viewer.events, from, to);
        const why = `${arrived} ticks arrived and ${calls} samples run in ${to - from} ms`;
        expect(arrived, why).toBeGreaterThan(10);
        expect(calls, why).toBeGreaterThan(10);
        expect((await byId("east")).sampleMs).toBe(100);
      } finally {
        viewer.close();
      }
      await waitFor("no viewer left", async () => (await byId("east")).viewers === 0, 5000);
      // Back to the idle cadence, by the server's count over 2 s.
      await waitFor("idle cadence once the last viewer left", async () => (await callsOver(2000)) < 8, 10_000, 0);
      expect((await byId("east")).sampleMs).toBe(1000);
    } finally {
      await admin.end();
    }
  });

  it("exports the window as JSON that parses with the window's schema, and ticks as CSV", async () => {
    const json = await fetch(`${app.url}/api/targets/east/export?format=json`);
    expect(json.headers.get("content-disposition")).toMatch(/attachment; filename="inflight-east-.*\.json"/);
    const snapshot = WindowSnapshot.parse(await json.json());
    expect(snapshot.target.id).toBe("east");
    expect(snapshot.ticks.length).toBeGreaterThan(0);

    const from = snapshot.ticks[0].t;
    const to = snapshot.ticks.at(-1)!.t;
    const ranged = WindowSnapshot.parse(
      await (await fetch(`${app.url}/api/targets/east/export?format=json&from=${from + 1}&to=${to}`)).json(),
    );
    expect(ranged.ticks.every((t) => t.t > from && t.t <= to)).toBe(true);

    const csv = await (await fetch(`${app.url}/api/targets/east/export?format=csv`)).text();
    const lines = csv.trim().split("\n");
    expect(lines[0].startsWith("seq,t,time,async_in_flight")).toBe(true);
    expect(lines.length).toBeGreaterThan(1);

    const bad = await fetch(`${app.url}/api/targets/east/export?format=xml`);
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.field).toBe("format");
  });
});
