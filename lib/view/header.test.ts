import { describe, expect, it } from "vitest";
import type { AspectHealth } from "@/lib/schemas/target";
import { target, tick } from "../../test/support/fixtures";
import { aiosReadEvery, aspectsView, besideQueries, coreShare, costView, demoBadge, serverStarted, statusText, workersNow } from "./header";
import { formatClock } from "@/lib/format";

const T0 = new Date(2025, 0, 1, 7, 22, 38).getTime();

// "up since 07:22:38" (inflight's connection) was read as the server's start (issue 11).
describe("statusText / serverStarted", () => {
  it("says inflight connected, and the server's start apart", () => {
    const t = target({ status: "up", statusSince: T0, postmasterStart: T0 - 3_600_000 });
    expect(statusText(t, T0 + 60_000)).toBe("up · connected since 07:22:38 (1 min ago)");
    expect(serverStarted(t, T0)).toBe("06:22:38 (1 h ago)");
    expect(serverStarted(target({ postmasterStart: null }), T0)).toBeNull();
  });
  it("says down since, without 'up'", () => {
    expect(statusText(target({ status: "down", statusSince: T0 }), null)).toBe("down since 07:22:38");
  });
});

// The demo was named twice: "demo" and a "demo" badge read "demodemo" (issue 11).
describe("demoBadge", () => {
  it.each([
    [{ demo: true, name: "demo" }, null],
    [{ demo: true, name: "Demo server" }, null],
    [{ demo: true, name: "embedded" }, "demo"],
    [{ demo: false, name: "prod" }, null],
  ])("%o -> %s", (t, want) => expect(demoBadge(t)).toBe(want));
});

describe("costView", () => {
  it("says what watching costs, as the issue words it", () => {
    const v = costView({
      budgetMsPerSecond: 5,
      msPerSecond: 1.8,
      spanS: 10,
      statements: [
        { statement: "activity", msPerCall: 0.12, callsPerSecond: 10, msPerSecond: 1.2, source: "pg_stat_statements" },
        { statement: "aios", msPerCall: 3.3, callsPerSecond: 0.2, msPerSecond: 0.66, source: "round trip" },
      ],
      aios: { msPerRead: 3.3, intervalMs: 300, skipped: 4 },
      note: "pg_aios read every 300 ms while backends run, not every sample: it costs 3.3 ms a read on this server.",
    });
    expect(v.summary).toBe("watching costs 1.8 ms/s of server time");
    expect(v.core).toBe("0.2% of a core");
    expect(v.aios).toBe("pg_aios every 300 ms: 3.3 ms a read here, 4 reads put off by the budget in the last 10 s");
    expect(v.budget).toBe("within the 5 ms/s budget, INFLIGHT_BUDGET");
    expect(v.note).toMatch(/every 300 ms/);
    expect(v.rows.map((r) => [r.statement, r.perCall, r.source])).toEqual([
      ["activity", "0.12 ms", "exact (pg_stat_statements)"],
      ["aios", "3.3 ms", "estimated (round trip less a ping)"],
    ]);
  });
  it("says over what span it is over the budget, once, in the header", () => {
    const v = costView({ ...target().cost, msPerSecond: 7.6, spanS: 4 });
    expect(v.over).toBe(true);
    expect(v.budget).toBe("over the 5 ms/s budget, INFLIGHT_BUDGET, in the last 4 s");
  });
  it("says pg_aios is read only while a backend is active when it was not read lately", () => {
    const v = costView({ ...target().cost, aios: { msPerRead: 0.19, intervalMs: null, skipped: 0 } });
    expect(v.aios).toMatch(/read only while a backend is active/);
  });
  it("says the budget put pg_aios off, not that no backend was active, when it skipped every read", () => {
    const v = costView({ ...target().cost, aios: { msPerRead: 8, intervalMs: null, skipped: 31 } });
    expect(v.aios).toBe("pg_aios 8 ms a read here: 31 reads put off by the budget in the last 10 s");
  });
  it.each([
    [
      100,
      { intervalMs: 294, skipped: 17 },
      "read every 294 ms while backends run, not every sample (every 100 ms): the budget spaces it out",
    ],
    [100, { intervalMs: 110, skipped: 1 }, "read every 110 ms while backends run"],
    [100, { intervalMs: null, skipped: 0 }, "read with the samples (every 100 ms) while a backend is active"],
    [100, { intervalMs: null, skipped: 31 }, "not read in the last 10 s: the budget put off its 31 reads"],
  ])("pg_aios at samples every %i ms and %o: %s", (sampleMs, aios, want) => expect(aiosReadEvery(sampleMs, aios)).toBe(want));
  it("names the same interval as the cost line", () => {
    const aios = { msPerRead: 3.3, intervalMs: 294, skipped: 17 };
    expect(costView({ ...target().cost, aios }).aios).toContain("every 294 ms");
    expect(aiosReadEvery(100, aios)).toContain("every 294 ms");
  });
  it.each([
    [1.8, "0.2%"],
    [0.04, "<0.1%"],
    [33, "3.3%"],
    [0, "0%"],
  ])("%f ms/s is %s of a core", (ms, want) => expect(coreShare(ms)).toBe(want));
});

const aspect = (a: AspectHealth["aspect"], state: AspectHealth["state"], over: Partial<AspectHealth> = {}): AspectHealth => ({
  aspect: a,
  state,
  since: T0,
  lastError: null,
  note: null,
  lastOkAt: null,
  ...over,
});

describe("aspectsView", () => {
  it("all ok: says so in a few words", () => expect(aspectsView(target().aspects)).toEqual({ allOk: true, degraded: false, items: [] }));
  it("not read yet is not a fault", () => {
    const v = aspectsView([aspect("sampling", "ok"), aspect("aios", "waiting")]);
    expect(v).toMatchObject({ allOk: false, degraded: false });
    expect(v.items[0]).toMatchObject({ tone: "muted", text: "pg_aios: not read yet (read only while a backend is active)" });
  });
  it("shows a failing aspect as itself, with its error and since when, first", () => {
    const v = aspectsView([
      aspect("sampling", "ok"),
      aspect("statements", "unavailable", {
        note: "pg_stat_statements is not installed in this database: add it to shared_preload_libraries",
      }),
      aspect("stat_io", "failing", { lastError: "permission denied for view pg_stat_io\nDETAIL: x" }),
    ]);
    expect(v.allOk).toBe(false);
    expect(v.degraded).toBe(true);
    expect(v.items.map((i) => [i.aspect, i.tone, i.text])).toEqual([
      ["stat_io", "bad", `pg_stat_io: permission denied for view pg_stat_io since ${formatClock(T0)}`],
      [
        "statements",
        "muted",
        "pg_stat_statements: not available: pg_stat_statements is not installed in this database: add it to shared_preload_libraries",
      ],
    ]);
  });
});

// The header's "workers busy 0 of 3" beside the panel's "now: 1 busy of 3" (issue 11): one figure from one sample.
describe("workersNow", () => {
  it("the header says the pool's bound on 19, io_workers on 18", () => {
    expect(workersNow(tick(1, 1, { workers: { configured: 2, max: 8, alive: 4, busy: 3 } }), "worker")).toMatchObject({
      short: "3 of 4 busy",
      pool: "io workers 4 of up to 8 (pool grows on demand)",
    });
    expect(workersNow(tick(1, 1, { workers: { configured: 3, alive: 2, busy: 1 } }), "worker")).toMatchObject({
      text: "1 of 2 busy (io_workers = 3)",
      pool: null,
    });
  });

  it("is the newest sample's busy of alive", () => {
    const t = tick(1, 0, { workers: { configured: 3, alive: 3, busy: 1 } });
    expect(workersNow(t, "worker")).toMatchObject({ text: "1 of 3 busy", short: "1 of 3 busy", busy: 1, alive: 3, byDesign: null });
  });
  it("says when alive differs from io_workers", () => {
    expect(workersNow(tick(1, 0, { workers: { configured: 3, alive: 2, busy: 0 } }), "worker").text).toBe("0 of 2 busy (io_workers = 3)");
  });
  it("takes io_workers as the settings say now when given (a reload before the sample shown)", () => {
    const t = tick(1, 0, { workers: { configured: 3, alive: 3, busy: 0 } });
    expect(workersNow(t, "worker", 1).text).toBe("0 of 3 busy (io_workers = 1)");
    expect(workersNow(t, "worker", 3).text).toBe("0 of 3 busy");
    expect(workersNow(t, "worker", null).text).toBe("0 of 3 busy");
  });
  it.each(["sync", "io_uring"])("says there are none by design under io_method = %s", (m) => {
    const w = workersNow(tick(1, 0, { workers: { configured: 0, alive: 0, busy: 0 } }), m);
    expect(w.short).toBe("none, by design");
    expect(w.text).toContain(`io_method = ${m}`);
  });
  it("no sample yet", () => expect(workersNow(null, "worker").short).toBe("–"));
});

describe("aspectsView while the target is down", () => {
  it("says nothing is read, not that every aspect reads fine", () => {
    const v = aspectsView(target().aspects, { status: "down", statusSince: T0 });
    expect(v.allOk).toBe(false);
    expect(v.items.map((i) => i.text)).toEqual([`nothing read since ${formatClock(T0)}: the target is down`]);
  });
});

describe("besideQueries", () => {
  const runs = [
    { id: "1:10", backendType: "client backend" },
    { id: "2:20", backendType: "autovacuum worker" },
    { id: "3:30", backendType: "autovacuum worker" },
    { id: "4:40", backendType: "background worker" },
  ];
  const sample = (...ids: string[]) => ({ runs: ids.map((id) => ({ id, state: "aio" as const, inFlight: 1, syncInFlight: 0 })) });

  it("names the runs that are not client backends' queries, by what they are", () => {
    expect(besideQueries(sample("1:10", "2:20", "3:30", "4:40"), runs)).toBe("2 autovacuum · 1 background worker");
    expect(besideQueries(sample("2:20"), runs)).toBe("1 autovacuum");
  });

  it("says nothing for client backends only, no run, no sample, or a run the page does not know yet", () => {
    expect(besideQueries(sample("1:10"), runs)).toBeNull();
    expect(besideQueries(sample(), runs)).toBeNull();
    expect(besideQueries(null, runs)).toBeNull();
    expect(besideQueries(sample("9:90"), runs)).toBeNull();
  });
});
