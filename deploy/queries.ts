// Every PromQL expression deploy/ ships, and where it is: the Grafana
// dashboard's panel queries (with Grafana's variables replaced, ready to send
// to a Prometheus) and the rule files' expressions. What an expression reads
// (metric names, label matchers) is promql.ts's business.
import { readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";

export const DEPLOY_DIR = path.resolve(import.meta.dirname);
export const PROMETHEUS_DIR = path.join(DEPLOY_DIR, "prometheus");
export const PROMETHEUS_CONFIG = path.join(PROMETHEUS_DIR, "prometheus.yml");
export const RULE_FILES = [path.join(PROMETHEUS_DIR, "rules", "recording.yml"), path.join(PROMETHEUS_DIR, "rules", "alerts.yml")];
export const TEST_DIR = path.join(PROMETHEUS_DIR, "tests");
export const DASHBOARD_FILE = path.join(DEPLOY_DIR, "grafana", "inflight.json");

// ---- Grafana

export interface GrafanaTarget {
  refId?: string;
  expr?: string;
  instant?: boolean;
  datasource?: { type?: string; uid?: string };
  [k: string]: unknown;
}
export interface GrafanaPanel {
  id?: number;
  type: string;
  title?: string;
  datasource?: { type?: string; uid?: string };
  targets?: GrafanaTarget[];
  panels?: GrafanaPanel[];
  repeat?: string;
  [k: string]: unknown;
}
export interface GrafanaDashboard {
  title: string;
  uid?: string;
  schemaVersion: number;
  panels: GrafanaPanel[];
  templating: { list: { name: string; type: string; query?: unknown; definition?: string; datasource?: unknown; [k: string]: unknown }[] };
  annotations?: { list: { name: string; expr?: string; datasource?: unknown; [k: string]: unknown }[] };
  [k: string]: unknown;
}

export function loadDashboard(file = DASHBOARD_FILE): GrafanaDashboard {
  return JSON.parse(readFileSync(file, "utf8")) as GrafanaDashboard;
}

/** Every panel, rows' nested panels (a collapsed row keeps them inside) included, rows themselves too. */
export function allPanels(dashboard: GrafanaDashboard): GrafanaPanel[] {
  return dashboard.panels.flatMap((p) => [p, ...(p.panels ?? [])]);
}

export interface QueryVars {
  /** The value of $target: one target id (regex-escaped as Grafana does). Default `.+`: every target. */
  target?: string;
  /** $__rate_interval (default 1m: four scrapes at 15 s). */
  rateInterval?: string;
  /** $__interval (default 15s). */
  interval?: string;
  /** $__range (default 1h). */
  range?: string;
}

/** A value as Grafana puts a multi-value variable in a regex matcher, inside a PromQL string. */
export function grafanaRegexValue(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\]/g, (c) => `\\\\${c}`).replace(/"/g, '\\"');
}

/** Grafana's variables in an expression replaced by plain values. */
export function substitute(expr: string, vars: QueryVars = {}): string {
  const target = vars.target === undefined ? ".+" : grafanaRegexValue(vars.target);
  const values: Record<string, string> = {
    __rate_interval: vars.rateInterval ?? "1m",
    __interval: vars.interval ?? "15s",
    __range: vars.range ?? "1h",
    target,
  };
  return expr.replace(/\$\{(\w+)\}|\$(\w+)/g, (whole, braced: string | undefined, bare: string | undefined) => {
    const name = braced ?? bare!;
    if (!(name in values)) throw new Error(`unknown Grafana variable ${whole} in: ${expr}`);
    return values[name];
  });
}

export interface PanelQuery {
  panelId: number | undefined;
  panel: string;
  panelType: string;
  refId: string;
  instant: boolean;
  /** As written in the dashboard. */
  raw: string;
  /** With the variables replaced: plain PromQL. */
  expr: string;
}

/**
 * Every query of every panel, with $target, $__rate_interval, $__interval
 * and $__range replaced, to run against a Prometheus (e.g. one scraping a
 * live inflight: each should return data).
 */
export function panelQueries(dashboard: GrafanaDashboard = loadDashboard(), vars: QueryVars = {}): PanelQuery[] {
  const out: PanelQuery[] = [];
  for (const p of allPanels(dashboard)) {
    for (const t of p.targets ?? []) {
      if (!t.expr) continue;
      out.push({
        panelId: p.id,
        panel: p.title ?? "",
        panelType: p.type,
        refId: t.refId ?? "",
        instant: t.instant === true,
        raw: t.expr,
        expr: substitute(t.expr, vars),
      });
    }
  }
  return out;
}

/** The dashboard's annotation queries (events: they return data only when one happened). */
export function annotationQueries(
  dashboard: GrafanaDashboard = loadDashboard(),
  vars: QueryVars = {},
): { name: string; raw: string; expr: string }[] {
  return (dashboard.annotations?.list ?? [])
    .filter((a) => typeof a.expr === "string" && a.expr)
    .map((a) => ({ name: a.name, raw: a.expr!, expr: substitute(a.expr!, vars) }));
}

// ---- Prometheus rule files and their unit tests

export interface RuleFile {
  groups: {
    name: string;
    interval?: string;
    rules: (
      | { record: string; expr: string; labels?: Record<string, string> }
      | { alert: string; expr: string; for?: string; labels?: Record<string, string>; annotations?: Record<string, string> }
    )[];
  }[];
}
export interface RuleExpr {
  file: string;
  group: string;
  kind: "record" | "alert";
  name: string;
  expr: string;
  for?: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

export function loadYaml<T>(file: string): T {
  return parse(readFileSync(file, "utf8")) as T;
}

export function ruleExpressions(files: string[] = RULE_FILES): RuleExpr[] {
  return files.flatMap((file) =>
    loadYaml<RuleFile>(file).groups.flatMap((g) =>
      g.rules.map((r) =>
        "record" in r
          ? { file, group: g.name, kind: "record" as const, name: r.record, expr: r.expr, labels: r.labels ?? {}, annotations: {} }
          : {
              file,
              group: g.name,
              kind: "alert" as const,
              name: r.alert,
              expr: r.expr,
              for: r.for,
              labels: r.labels ?? {},
              annotations: r.annotations ?? {},
            },
      ),
    ),
  );
}

export interface RuleTestFile {
  rule_files: string[];
  evaluation_interval?: string;
  tests: {
    name?: string;
    interval?: string;
    input_series?: { series: string; values: string }[];
    promql_expr_test?: { expr: string; eval_time: string; exp_samples?: { labels: string; value: number }[] }[];
    alert_rule_test?: {
      alertname: string;
      eval_time: string;
      exp_alerts?: { exp_labels?: Record<string, string>; exp_annotations?: Record<string, string> }[];
    }[];
  }[];
}
