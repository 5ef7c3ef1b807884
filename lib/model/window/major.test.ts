import { describe, expect, it } from "vitest";
import { tick } from "../../../test/support/fixtures";
import { computeChecks } from "./checks";
import { aioTitle, fleetMajor, hasExplainIo, workerSettingsProblem, workerSizing, workersLever } from "./major";
import { configuredWorkers, toSettings } from "./settings";

const row = (name: string, setting: string) => ({
  name,
  setting,
  unit: null,
  source: "default",
  pending_restart: false,
  enumvals: null,
  vartype: "integer",
});
const pg18 = toSettings([row("io_method", "worker"), row("io_workers", "3")]);
const pg19 = toSettings([row("io_method", "worker"), row("io_min_workers", "2"), row("io_max_workers", "8")]);

describe("what differs by major", () => {
  it("sizing, the lever and the floor come from the settings the server has", () => {
    expect(workerSizing(pg18)).toEqual({ kind: "fixed", workers: 3 });
    expect(workerSizing(pg19)).toEqual({ kind: "pool", min: 2, max: 8 });
    expect(workerSizing(toSettings([row("io_method", "worker")]))).toBeNull();
    expect(workersLever(pg18, 1)).toBe("raise io_workers (now 3; a reload applies it)");
    expect(workersLever(pg19, 1)).toBe("raise io_max_workers (now 8; a reload applies it)");
    expect(configuredWorkers(pg18)).toBe(3);
    expect(configuredWorkers(pg19)).toBe(2);
  });

  it("titles name the target's major, or none for a mixed fleet", () => {
    expect(aioTitle(19)).toBe("PostgreSQL 19 asynchronous I/O");
    expect(aioTitle(null)).toBe("PostgreSQL asynchronous I/O");
    expect(fleetMajor([{ serverVersionNum: 190000 }, { serverVersionNum: null }])).toBe(19);
    expect(fleetMajor([{ serverVersionNum: 190000 }, { serverVersionNum: 180004 }])).toBeNull();
    expect(hasExplainIo(18)).toBe(false);
    expect(hasExplainIo(19)).toBe(true);
  });

  it.each([
    [2, "pass", /^2 io workers alive, within io_min_workers = 2 to io_max_workers = 8: the pool grows on demand/],
    [8, "pass", /^8 io workers alive, within/],
    [1, "note", /^1 io workers alive, outside io_min_workers = 2 to io_max_workers = 8\./],
    [0, "fail", /outside/],
  ] as const)("19's io workers check with %i alive: %s", (alive, status, message) => {
    const [check] = computeChecks({
      settings: pg19,
      capabilities: null,
      lastTick: tick(1, 1, { workers: { configured: 2, alive } }),
      asyncSeen: false,
      readsSeen: false,
    }).filter((c) => c.id === "io_workers");
    expect(check).toMatchObject({ status });
    expect(check.message).toMatch(message);
    expect(check.message).not.toMatch(/NaN|undefined|io_workers =/);
  });

  it("the demo's restart takes the worker settings of the target's major only", () => {
    expect(workerSettingsProblem(pg19, { io_workers: 4 })).toMatchObject({
      field: "io_workers",
      message: expect.stringMatching(/PostgreSQL 19 has none/),
    });
    expect(workerSettingsProblem(pg18, { io_max_workers: 4 })).toMatchObject({ field: "io_max_workers" });
    expect(workerSettingsProblem(pg19, { io_min_workers: 9 })).toMatchObject({
      field: "io_min_workers",
      message: "io_min_workers: 9 is above io_max_workers 8",
    });
    expect(workerSettingsProblem(pg19, { io_min_workers: 1, io_max_workers: 4 })).toBeNull();
    expect(workerSettingsProblem(pg18, { io_workers: 4 })).toBeNull();
  });
});
