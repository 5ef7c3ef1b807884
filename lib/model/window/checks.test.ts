import { describe, expect, it } from "vitest";
import { tick as fixture } from "../../../test/support/fixtures";
import { computeChecks, type CheckInput } from "./checks";
import { toSettings } from "./settings";

const s = (name: string, setting: string, extra: Partial<{ unit: string; pending_restart: boolean; enumvals: string[] }> = {}) => ({
  name,
  setting,
  unit: extra.unit ?? null,
  source: "default",
  pending_restart: extra.pending_restart ?? false,
  enumvals: extra.enumvals ?? null,
  vartype: "string",
});
const tick = (alive: number) => fixture(1, 1, { workers: { alive } });

function checks(rows: ReturnType<typeof s>[], extra: Partial<CheckInput> = {}) {
  const input: CheckInput = {
    settings: toSettings(rows),
    capabilities: null,
    lastTick: tick(3),
    asyncSeen: false,
    readsSeen: false,
    ...extra,
  };
  return Object.fromEntries(computeChecks(input).map((c) => [c.id, c]));
}

describe("computeChecks", () => {
  it("warns about settings waiting for a restart and names them", () => {
    const c = checks([s("io_method", "worker", { pending_restart: true }), s("io_workers", "3")]);
    expect(c.pending_restart.status).toBe("note");
    expect(c.pending_restart.message).toMatch(
      /^Waiting for a restart: io_method worker in force; the value the next restart brings is in pg_file_settings/,
    );
  });

  it("warns with the effective value when io_combine_limit is above the max", () => {
    const c = checks([s("io_combine_limit", "32", { unit: "8kB" }), s("io_max_combine_limit", "16", { unit: "8kB" })]);
    expect(c.io_combine_limit.status).toBe("note");
    expect(c.io_combine_limit.message).toContain("the effective value is 128 kB");
  });

  it.each([
    ["worker", "3", 3, "pass"],
    ["worker", "5", 3, "note"],
    ["worker", "3", 0, "fail"],
    ["sync", "3", 0, "pass"],
    ["sync", "3", 2, "note"],
  ])("io_method=%s io_workers=%s with %i alive -> %s", (method, workers, alive, want) => {
    const c = checks([s("io_method", method), s("io_workers", workers)], { lastTick: tick(alive) });
    expect(c.io_workers.status).toBe(want);
  });

  it("cannot count io workers without pg_read_all_stats", () => {
    const capabilities = { aios: true, aiosDenied: true, statIo: true, statStatements: null, readAllStats: false, role: "watcher" };
    const c = checks([s("io_method", "worker"), s("io_workers", "3")], { lastTick: tick(0), capabilities });
    expect(c.io_workers.status).toBe("unknown");
    expect(c.io_workers.message).toContain("GRANT pg_monitor");
  });

  it.each([
    // A build without liburing is a fact, not an unknown (issue 11).
    [["sync", "worker"], "info"],
    [["sync", "worker", "io_uring"], "pass"],
  ])("io_uring offered by %o -> %s", (vals, want) => {
    expect(checks([s("io_method", "worker", { enumvals: vals })]).io_uring.status).toBe(want);
  });

  it("says read wait cannot be measured with track_io_timing off", () => {
    expect(checks([s("track_io_timing", "off")]).track_io_timing.status).toBe("note");
  });

  it("calls read-ahead a limit, not a count of reads in flight", () => {
    const m = checks([s("effective_io_concurrency", "16")]).effective_io_concurrency.message;
    expect(m).toContain("at most 16");
    expect(m).toContain("a limit, not a count");
    expect(m).not.toMatch(/up to 16 reads ahead/);
  });

  it("says io_uring is not offered, plainly", () => {
    expect(checks([s("io_method", "worker", { enumvals: ["sync", "worker"] })]).io_uring.message).toMatch(
      /^Not offered: this build was made without liburing.*postgresql-18/,
    );
    expect(checks([s("io_method", "worker", { enumvals: ["sync", "worker", "io_uring"] })]).io_uring.message).toMatch(
      /seccomp.*could not setup io_uring queue: Operation not permitted.*io_uring_setup/,
    );
    expect(checks([s("io_method", "io_uring", { enumvals: ["sync", "worker", "io_uring"] })]).io_uring.message).toMatch(/in force/);
  });

  it("says read-ahead is off at effective_io_concurrency 0", () => {
    expect(checks([s("effective_io_concurrency", "0")]).effective_io_concurrency.status).toBe("note");
  });

  it.each([
    [false, false, "unknown", /nothing has read/],
    [false, true, "unknown", /Not yet observed/],
    [true, true, "pass", /working/],
  ])("async observed=%s reads=%s -> %s", (asyncSeen, readsSeen, want, msg) => {
    const c = checks([s("io_method", "worker")], { asyncSeen, readsSeen });
    expect(c.async_observed.status).toBe(want);
    expect(c.async_observed.message).toMatch(msg);
  });
});
