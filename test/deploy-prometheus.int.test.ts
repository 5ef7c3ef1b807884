// deploy/'s rules and dashboard run by a real Prometheus (Debian's) that
// scrapes stand-in exporters serving the /metrics contract's series: every
// panel query and recording rule returns data, every rule evaluates cleanly.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RULE_FILES, loadDashboard, panelQueries, ruleExpressions } from "../deploy/queries";
import { startContractExporter, startPrometheus, type RunningPrometheus, type StandIn } from "./support/prometheus";

const rules = ruleExpressions();
const records = rules.filter((r) => r.kind === "record");
const dashboard = loadDashboard();

describe("a real Prometheus scraping the contract's series", () => {
  // Two inflight processes: one watches east (18) and west (19's pool), the
  // other east too (an HA pair): no query may fail on duplicate series.
  let a: StandIn;
  let b: StandIn;
  let prom: RunningPrometheus;

  beforeAll(async () => {
    a = await startContractExporter(["east", "west"], ["west"]);
    b = await startContractExporter(["east"]);
    prom = await startPrometheus({ targets: [a.hostPort, b.hostPort], ruleFiles: RULE_FILES, scrapeInterval: "1s" });
    const deadline = Date.now() + 30_000;
    for (;;) {
      const r = await prom.query("min(count_over_time(inflight_samples_total[1m]))").catch(() => []);
      if (Number(r[0]?.value?.[1] ?? 0) >= 5) break;
      if (Date.now() > deadline) throw new Error("prometheus did not scrape the stand-in exporters 5 times in 30 s");
      await new Promise((r) => setTimeout(r, 500));
    }
    // Rules evaluated at least twice after that.
    await new Promise((r) => setTimeout(r, 2500));
  }, 60_000);

  afterAll(async () => {
    await prom?.stop();
    await a?.stop();
    await b?.stop();
  });

  it("every panel query returns data for a target", async () => {
    const empty: string[] = [];
    for (const q of panelQueries(dashboard, { target: "east", rateInterval: "1m" })) {
      const result = await prom.query(q.expr);
      if (result.length === 0) empty.push(`${q.panel} ${q.refId}: ${q.expr}`);
      for (const s of result) if (s.metric.target !== undefined) expect(s.metric.target, q.panel).toBe("east");
    }
    expect(empty).toEqual([]);
  });

  it("every recording rule returns data, and every rule evaluates without error", async () => {
    for (const r of records) expect((await prom.query(r.name)).length, r.name).toBeGreaterThan(0);
    const evaluated = (await prom.rules()).flatMap((g) => g.rules);
    expect(evaluated.length).toBe(rules.length);
    for (const r of evaluated)
      expect({ rule: r.name, health: r.health, lastError: r.lastError ?? "" }).toEqual({ rule: r.name, health: "ok", lastError: "" });
    // Nothing is wrong with these targets: no alert pending or firing.
    expect(evaluated.filter((r) => r.type === "alerting" && r.state !== "inactive").map((r) => r.name)).toEqual([]);
  });
});
