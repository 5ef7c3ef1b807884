// deploy/: the Prometheus scrape config, recording rules, alerts and their
// unit tests, and the Grafana dashboard, checked with the real promtool and
// Prometheus (Debian's), and against the /metrics contract (deploy/contract.ts).
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { CONTRACT, CONTRACT_NAMES, PROMETHEUS_SERIES, TARGET_LABEL, metricSpec, requiredSeries } from "../deploy/contract";
import {
  PROMETHEUS_CONFIG,
  PROMETHEUS_DIR,
  RULE_FILES,
  TEST_DIR,
  allPanels,
  annotationQueries,
  exprUses,
  loadDashboard,
  loadYaml,
  metricNames,
  panelQueries,
  ruleExpressions,
  substitute,
  type RuleTestFile,
} from "../deploy/queries";
import { startContractExporter, startPrometheus, type RunningPrometheus, type StandIn } from "./support/prometheus";

const PROMTOOL = process.env.PROMTOOL_BIN ?? "/usr/bin/promtool";

function promtool(args: string[], cwd?: string) {
  const r = spawnSync(PROMTOOL, args, { encoding: "utf8", cwd, timeout: 60_000 });
  if (r.error) throw r.error;
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

const testFiles = readdirSync(TEST_DIR)
  .filter((f) => f.endsWith(".test.yml"))
  .map((f) => path.join(TEST_DIR, f));
const rules = ruleExpressions();
const records = rules.filter((r) => r.kind === "record");
const alerts = rules.filter((r) => r.kind === "alert");
const recordNames = new Set(records.map((r) => r.name));
const dashboard = loadDashboard();

function tmpdir(): string {
  return mkdtempSync(path.join(os.tmpdir(), "inflight-deploy-"));
}

describe("promtool check config / check rules", () => {
  it("passes on prometheus.yml, and finds both rule files", () => {
    const r = promtool(["check", "config", PROMETHEUS_CONFIG]);
    expect(r.out).toContain("is valid prometheus config file syntax");
    expect(r.out).toContain(`SUCCESS: ${RULE_FILES.length} rule files found`);
    expect(r.code, r.out).toBe(0);
  });

  it("passes with the bearer-token block uncommented and a token file, fails without the file", () => {
    const dir = tmpdir();
    try {
      cpSync(PROMETHEUS_DIR, dir, { recursive: true });
      const tokenFile = path.join(dir, "inflight.token");
      const text = readFileSync(PROMETHEUS_CONFIG, "utf8");
      const enabled = text
        .replace("    # authorization:\n", "    authorization:\n")
        .replace("    #   type: Bearer\n", "      type: Bearer\n")
        .replace(/ {4}# {3}credentials_file: .*\n/, `      credentials_file: ${tokenFile}\n`);
      expect(enabled).not.toBe(text);
      writeFileSync(path.join(dir, "prometheus.yml"), enabled);
      const missing = promtool(["check", "config", path.join(dir, "prometheus.yml")]);
      expect(missing.code, missing.out).not.toBe(0);
      expect(missing.out).toContain("inflight.token");
      writeFileSync(tokenFile, "a-token-of-at-least-16-chars\n", { mode: 0o600 });
      const ok = promtool(["check", "config", path.join(dir, "prometheus.yml")]);
      expect(ok.code, ok.out).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("passes on every rule file, with the number of rules each holds", () => {
    for (const file of RULE_FILES) {
      const r = promtool(["check", "rules", file]);
      expect(r.code, r.out).toBe(0);
      expect(r.out).toContain(`SUCCESS: ${rules.filter((x) => x.file === file).length} rules found`);
    }
    expect(records.length).toBeGreaterThanOrEqual(10);
    expect(alerts.length).toBeGreaterThanOrEqual(7);
  });

  it("documents every rule and alert in deploy/README.md", () => {
    const readme = readFileSync(path.join(PROMETHEUS_DIR, "..", "README.md"), "utf8");
    for (const r of rules) expect(readme, r.name).toContain(`\`${r.name}\``);
  });

  it("names recording rules inflight:<what>:<how>, and gives every alert for, severity, summary and description", () => {
    for (const r of records) expect(r.name).toMatch(/^inflight:[a-z0-9_]+:[a-z0-9_]+$/);
    for (const a of alerts) {
      expect(a.for, a.name).toMatch(/^\d+[smh]$/);
      expect(["critical", "warning", "info"], a.name).toContain(a.labels.severity);
      expect(a.annotations.summary, a.name).toBeTruthy();
      expect(a.annotations.description?.length ?? 0, a.name).toBeGreaterThan(80);
    }
  });
});

describe("promtool test rules", () => {
  const tests = testFiles.map((file) => ({ file, spec: loadYaml<RuleTestFile>(file) }));

  it("runs every test file and passes", () => {
    expect(testFiles.length).toBeGreaterThanOrEqual(2);
    const r = promtool(["test", "rules", ...testFiles]);
    expect(r.code, r.out).toBe(0);
    // One "Unit Testing:" block and one SUCCESS per file.
    expect(r.out.match(/^Unit Testing: /gm)?.length).toBe(testFiles.length);
    expect(r.out.match(/^ {2}SUCCESS$/gm)?.length).toBe(testFiles.length);
    const groups = tests.reduce((n, t) => n + t.spec.tests.length, 0);
    expect(groups).toBeGreaterThanOrEqual(alerts.length + 5);
  });

  it("really evaluates every assertion: a copy with every expectation falsified fails each one", () => {
    // Every exp_samples value + 1 and every firing alert expected silent:
    // promtool must report each of those assertions as failed.
    const dir = tmpdir();
    try {
      cpSync(PROMETHEUS_DIR, dir, { recursive: true });
      let assertions = 0;
      for (const file of testFiles) {
        const spec = loadYaml<RuleTestFile>(file); // a copy of its own: falsified below
        for (const t of spec.tests) {
          for (const e of t.promql_expr_test ?? []) {
            for (const s of e.exp_samples ?? []) s.value += 1;
            assertions++;
          }
          for (const a of t.alert_rule_test ?? []) {
            if (a.exp_alerts?.length) {
              a.exp_alerts = [];
              assertions++;
            }
          }
        }
        writeFileSync(path.join(dir, "tests", path.basename(file)), stringify(spec));
      }
      const r = promtool(["test", "rules", ...testFiles.map((f) => path.join(dir, "tests", path.basename(f)))]);
      expect(r.code).not.toBe(0);
      const failed = (r.out.match(/^ {4}expr: "/gm)?.length ?? 0) + (r.out.match(/^ {4}alertname: /gm)?.length ?? 0);
      expect(failed, r.out).toBe(assertions);
      expect(assertions).toBeGreaterThanOrEqual(records.length + alerts.length);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("tests every recording rule, and every alert both firing and silent", () => {
    const exprTests = tests.flatMap((t) => t.spec.tests.flatMap((g) => g.promql_expr_test ?? []));
    const alertTests = tests.flatMap((t) => t.spec.tests.flatMap((g) => g.alert_rule_test ?? []));
    for (const r of records) {
      const covering = exprTests.filter((e) => metricNames(e.expr).includes(r.name) && (e.exp_samples?.length ?? 0) > 0);
      expect(covering.length, `no promql_expr_test with samples for ${r.name}`).toBeGreaterThan(0);
    }
    for (const a of alerts) {
      const mine = alertTests.filter((t) => t.alertname === a.name);
      expect(mine.some((t) => (t.exp_alerts?.length ?? 0) > 0), `${a.name} never tested firing`).toBe(true);
      expect(mine.some((t) => (t.exp_alerts?.length ?? 0) === 0), `${a.name} never tested silent`).toBe(true);
    }
  });

  it("builds its input series from the contract", () => {
    for (const { spec } of tests) {
      for (const t of spec.tests) {
        for (const s of t.input_series ?? []) {
          checkSelectorsAgainstContract(s.series, `input series ${s.series}`, { requireTarget: true });
        }
      }
    }
  });
});

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
    if (requireTarget) expect(sel.matchers.some((m) => m.label === TARGET_LABEL), `${where}: no target label`).toBe(true);
  }
}

describe("every metric the rules and the dashboard use is in the contract", () => {
  it("rules", () => {
    for (const r of rules) checkSelectorsAgainstContract(r.expr, `${r.kind} ${r.name}`);
    // A recording rule may read another's output; no alert needs one.
    for (const a of alerts) for (const n of metricNames(a.expr)) expect(recordNames.has(n), `${a.name} reads ${n}`).toBe(false);
  });

  it("dashboard panels and annotations", () => {
    for (const q of panelQueries(dashboard)) {
      checkSelectorsAgainstContract(q.raw, `panel "${q.panel}" ${q.refId}`);
      for (const n of metricNames(q.raw)) expect(recordNames.has(n), `panel "${q.panel}" reads the rule ${n}: it must work without the rules`).toBe(false);
      // Every selector is narrowed to the chosen targets.
      for (const sel of exprUses(q.raw).selectors) expect(sel.matchers.some((m) => m.label === TARGET_LABEL && m.value === "$target"), `panel "${q.panel}": ${sel.name} without target=~"$target"`).toBe(true);
    }
    for (const a of annotationQueries(dashboard)) checkSelectorsAgainstContract(a.raw, `annotation ${a.name}`);
  });

  it("the lexer finds names, matchers and grouping labels", () => {
    const u = exprUses('sum by (target, mode) (rate(inflight_read_wait_samples_total{mode="async",target=~"a|b"}[5m] offset 1m)) / on (target) group_left () (sum without (instance) (rate(inflight_samples_total[1m])) > 0) # inflight_not_a_metric\n and up == 1e-3');
    expect(u.selectors.map((s) => s.name)).toEqual(["inflight_read_wait_samples_total", "inflight_samples_total", "up"]);
    expect(u.selectors[0].matchers).toEqual([
      { label: "mode", op: "=", value: "async" },
      { label: "target", op: "=~", value: "a|b" },
    ]);
    expect(u.groupingLabels).toEqual(["target", "mode", "target", "instance"]);
    expect(metricNames('{__name__="inflight_target_up"}')).toEqual(["inflight_target_up"]);
  });

  it("the contract lists the label sets the panels need from the first scrape", () => {
    for (const spec of CONTRACT) expect(requiredSeries(spec, "t").length, spec.name).toBeGreaterThan(0);
  });
});

describe("Grafana dashboard", () => {
  it("has schemaVersion ~39, a prometheus datasource variable and a target variable", () => {
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(36);
    expect(dashboard.schemaVersion).toBeLessThanOrEqual(41);
    const ds = dashboard.templating.list.find((v) => v.name === "datasource");
    expect(ds).toMatchObject({ type: "datasource", query: "prometheus" });
    const target = dashboard.templating.list.find((v) => v.name === "target");
    expect(target?.type).toBe("query");
    expect(target?.definition).toBe("label_values(inflight_target_up, target)");
    expect(target?.query).toMatchObject({ query: "label_values(inflight_target_up, target)" });
    expect(target?.datasource).toMatchObject({ type: "prometheus", uid: "${datasource}" });
  });

  it("gives every panel the datasource variable and at least one query", () => {
    const panels = allPanels(dashboard).filter((p) => p.type !== "row");
    expect(panels.length).toBeGreaterThanOrEqual(15);
    const ids = allPanels(dashboard).map((p) => p.id);
    expect(new Set(ids).size, "panel ids unique").toBe(ids.length);
    for (const p of panels) {
      expect(p.datasource, p.title).toMatchObject({ type: "prometheus", uid: "${datasource}" });
      const targets = (p.targets ?? []).filter((t) => typeof t.expr === "string" && t.expr.trim());
      expect(targets.length, `${p.title}: no query`).toBeGreaterThan(0);
      expect(new Set(targets.map((t) => t.refId)).size, `${p.title}: refIds`).toBe(targets.length);
      for (const t of targets) expect(t.datasource, `${p.title} ${t.refId}`).toMatchObject({ type: "prometheus", uid: "${datasource}" });
    }
  });

  it("lays the panels out on a 24-column grid without overlaps", () => {
    const boxes = dashboard.panels.map((p) => ({ title: p.title, ...(p.gridPos as { x: number; y: number; w: number; h: number }) }));
    for (const b of boxes) expect(b.x + b.w, b.title).toBeLessThanOrEqual(24);
    for (const [i, p] of boxes.entries())
      for (const q of boxes.slice(i + 1)) {
        const overlap = p.x < q.x + q.w && q.x < p.x + p.w && p.y < q.y + q.h && q.y < p.y + p.h;
        expect(overlap, `${p.title} overlaps ${q.title}`).toBe(false);
      }
  });

  it("has the panels the README lists", () => {
    const titles = allPanels(dashboard).map((p) => p.title ?? "");
    for (const want of [/active sessions by wait event/i, /reads in flight/i, /busy vs alive/i, /read-wait share/i, /io_method/, /pending restart/i, /read throughput/i, /average read size/i, /findings/i, /collection health/i, /watching cost/i]) {
      expect(titles.some((t) => want.test(t)), String(want)).toBe(true);
    }
    const aas = allPanels(dashboard).find((p) => /active sessions/i.test(p.title ?? ""));
    expect((aas?.fieldConfig as { defaults: { custom: { stacking: { mode: string } } } }).defaults.custom.stacking.mode).toBe("normal");
  });

  it("substitutes Grafana's variables", () => {
    expect(substitute('rate(x{target=~"$target"}[$__rate_interval]) [${__range}] [$__interval]', { target: "127.0.0.1" })).toBe('rate(x{target=~"127\\\\.0\\\\.0\\\\.1"}[1m]) [1h] [15s]');
    expect(() => substitute("$nope")).toThrow(/unknown Grafana variable/);
    const qs = panelQueries(dashboard, { target: "east", rateInterval: "2m" });
    expect(qs.length).toBeGreaterThanOrEqual(20);
    for (const q of qs) expect(q.expr, q.panel).not.toContain("$");
  });

  it("has only valid PromQL (promtool parses every query as a rule)", () => {
    const dir = tmpdir();
    try {
      const queries = [...panelQueries(dashboard, { target: "east" }), ...annotationQueries(dashboard, { target: "east" }).map((a) => ({ ...a, panel: a.name, refId: "annotation" }))];
      const file = path.join(dir, "panels.yml");
      writeFileSync(file, stringify({ groups: [{ name: "panels", rules: queries.map((q, i) => ({ record: `panel:q${i}:check`, expr: q.expr })) }] }));
      const r = promtool(["check", "rules", file]);
      expect(r.code, r.out).toBe(0);
      expect(r.out).toContain(`SUCCESS: ${queries.length} rules found`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("a real Prometheus scraping the contract's series", () => {
  // Two inflight processes: one watches east and west, the other east too
  // (an HA pair): no query may fail on duplicate series.
  let a: StandIn;
  let b: StandIn;
  let prom: RunningPrometheus;

  beforeAll(async () => {
    a = await startContractExporter(["east", "west"]);
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
    for (const r of evaluated) expect({ rule: r.name, health: r.health, lastError: r.lastError ?? "" }).toEqual({ rule: r.name, health: "ok", lastError: "" });
    // Nothing is wrong with these targets: no alert pending or firing.
    expect(evaluated.filter((r) => r.type === "alerting" && r.state !== "inactive").map((r) => r.name)).toEqual([]);
  });
});
