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
import { waitFor } from "./support/pg";
import { startServer, type RunningServer } from "./support/server";

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
    expect((await byId("east")).sampleMs).toBe(1000);
    const controller = new AbortController();
    const res = await fetch(`${app.url}/api/targets/east/stream`, { signal: controller.signal });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const reader = res.body!.getReader();
    await reader.read();
    // The fast cadence (100 ms), or, on a loaded machine where a sample costs more than the
    // budget's share at that cadence, a stretched one that the cost note explains.
    const watched = await waitFor("fast cadence while watched", async () => {
      const t = await byId("east");
      return t.viewers === 1 && t.sampleMs < 1000 ? t : null;
    });
    if (watched.sampleMs > 100) expect(watched.cost.note).toContain(`wait events every ${watched.sampleMs} ms, not 100`);
    const start = await byId("east");
    await new Promise((r) => setTimeout(r, 2000));
    const after = await byId("east");
    // ~20 samples in 2 s at 10/s; the 1/s idle cadence would give 2 or 3
    expect(after.samples - start.samples).toBeGreaterThan(5);
    controller.abort();
    await waitFor("idle cadence once the last viewer left", async () => {
      const t = await byId("east");
      return t.viewers === 0 && t.sampleMs === 1000;
    });
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
