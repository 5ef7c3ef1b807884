// deploy/'s Prometheus files checked by the real promtool (Debian's): the
// scrape config, the rule files, their unit tests (and that those really
// assert), and the dashboard's queries parsed as PromQL. What they read is
// held to the /metrics contract in deploy-contract.int.test.ts; a live
// Prometheus runs them in deploy-prometheus.int.test.ts.
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { metricNames } from "../deploy/promql";
import {
  PROMETHEUS_CONFIG,
  PROMETHEUS_DIR,
  RULE_FILES,
  TEST_DIR,
  annotationQueries,
  loadDashboard,
  loadYaml,
  panelQueries,
  ruleExpressions,
  type RuleTestFile,
} from "../deploy/queries";

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
      expect(
        mine.some((t) => (t.exp_alerts?.length ?? 0) > 0),
        `${a.name} never tested firing`,
      ).toBe(true);
      expect(
        mine.some((t) => (t.exp_alerts?.length ?? 0) === 0),
        `${a.name} never tested silent`,
      ).toBe(true);
    }
  });
});

describe("promtool check rules on the dashboard's queries", () => {
  it("has only valid PromQL (promtool parses every query as a rule)", () => {
    const dir = tmpdir();
    try {
      const queries = [
        ...panelQueries(dashboard, { target: "east" }),
        ...annotationQueries(dashboard, { target: "east" }).map((a) => ({ ...a, panel: a.name, refId: "annotation" })),
      ];
      const file = path.join(dir, "panels.yml");
      writeFileSync(
        file,
        stringify({ groups: [{ name: "panels", rules: queries.map((q, i) => ({ record: `panel:q${i}:check`, expr: q.expr })) }] }),
      );
      const r = promtool(["check", "rules", file]);
      expect(r.code, r.out).toBe(0);
      expect(r.out).toContain(`SUCCESS: ${queries.length} rules found`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
