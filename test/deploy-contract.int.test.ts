// Every metric deploy/ reads (the rules, their unit tests' input series, the
// dashboard's panels and annotations) is in the /metrics contract
// (deploy/contract.ts), with the contract's labels and fixed label values.
import { readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CONTRACT, CONTRACT_NAMES, PROMETHEUS_SERIES, TARGET_LABEL, metricSpec, requiredSeries } from "../deploy/contract";
import { exprUses, metricNames } from "../deploy/promql";
import { TEST_DIR, annotationQueries, loadDashboard, loadYaml, panelQueries, ruleExpressions, type RuleTestFile } from "../deploy/queries";

const rules = ruleExpressions();
const alerts = rules.filter((r) => r.kind === "alert");
const recordNames = new Set(rules.filter((r) => r.kind === "record").map((r) => r.name));
const dashboard = loadDashboard();
const ruleTests = readdirSync(TEST_DIR)
  .filter((f) => f.endsWith(".test.yml"))
  .map((f) => loadYaml<RuleTestFile>(path.join(TEST_DIR, f)));

/** Each selector's metric in the contract (or a rule's record, or up), its labels the metric's, fixed values from their sets. */
function checkSelectorsAgainstContract(expr: string, where: string, { requireTarget = false } = {}) {
  const uses = exprUses(expr);
  expect(uses.selectors.length, where).toBeGreaterThan(0);
  for (const sel of uses.selectors) {
    expect(sel.name, `${where}: a selector without a metric name`).not.toBeNull();
    const name = sel.name!;
    if ((PROMETHEUS_SERIES as readonly string[]).includes(name)) continue;
    if (recordNames.has(name)) continue;
    expect(CONTRACT_NAMES.has(name), `${where}: ${name} is not in the /metrics contract`).toBe(true);
    const spec = metricSpec(name)!;
    const allowed = new Set([TARGET_LABEL, "job", "instance", ...Object.keys(spec.labels)]);
    for (const m of sel.matchers) {
      expect(allowed.has(m.label), `${where}: ${name} has no label ${m.label}`).toBe(true);
      const values = spec.labels[m.label]?.values;
      if (!values) continue;
      const alternatives = m.op === "=" ? [m.value] : m.op === "=~" && /^[\w|]+$/.test(m.value) ? m.value.split("|") : [];
      for (const v of alternatives) expect(values, `${where}: ${name}{${m.label}="${v}"}`).toContain(v);
    }
    if (requireTarget)
      expect(
        sel.matchers.some((m) => m.label === TARGET_LABEL),
        `${where}: no target label`,
      ).toBe(true);
  }
}

describe("every metric the rules, their tests and the dashboard use is in the contract", () => {
  it("rules", () => {
    for (const r of rules) checkSelectorsAgainstContract(r.expr, `${r.kind} ${r.name}`);
    // A recording rule may read another's output; no alert needs one.
    for (const a of alerts) for (const n of metricNames(a.expr)) expect(recordNames.has(n), `${a.name} reads ${n}`).toBe(false);
  });

  it("rule tests: their input series are built from the contract", () => {
    for (const spec of ruleTests) {
      for (const t of spec.tests) {
        for (const s of t.input_series ?? []) {
          checkSelectorsAgainstContract(s.series, `input series ${s.series}`, { requireTarget: true });
        }
      }
    }
  });

  it("dashboard panels and annotations", () => {
    for (const q of panelQueries(dashboard)) {
      checkSelectorsAgainstContract(q.raw, `panel "${q.panel}" ${q.refId}`);
      for (const n of metricNames(q.raw))
        expect(recordNames.has(n), `panel "${q.panel}" reads the rule ${n}: it must work without the rules`).toBe(false);
      // Every selector is narrowed to the chosen targets.
      for (const sel of exprUses(q.raw).selectors)
        expect(
          sel.matchers.some((m) => m.label === TARGET_LABEL && m.value === "$target"),
          `panel "${q.panel}": ${sel.name} without target=~"$target"`,
        ).toBe(true);
    }
    for (const a of annotationQueries(dashboard)) checkSelectorsAgainstContract(a.raw, `annotation ${a.name}`);
  });

  it("the contract lists the label sets the panels need from the first scrape", () => {
    for (const spec of CONTRACT) expect(requiredSeries(spec, "t", { pool: true }).length, spec.name).toBeGreaterThan(0);
    // 18 has no pool: its series are the rest.
    expect(CONTRACT.filter((spec) => requiredSeries(spec, "t").length === 0).map((spec) => spec.name)).toEqual(
      CONTRACT.filter((spec) => spec.poolOnly).map((spec) => spec.name),
    );
  });
});
