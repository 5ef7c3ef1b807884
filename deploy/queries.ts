// Every PromQL expression deploy/ ships, where it is and what it reads:
// the Grafana dashboard's panel queries (with Grafana's variables replaced,
// ready to send to a Prometheus) and the rule files' expressions, and a
// lexer that lists the metric names and label matchers an expression uses.
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
      out.push({ panelId: p.id, panel: p.title ?? "", panelType: p.type, refId: t.refId ?? "", instant: t.instant === true, raw: t.expr, expr: substitute(t.expr, vars) });
    }
  }
  return out;
}

/** The dashboard's annotation queries (events: they return data only when one happened). */
export function annotationQueries(dashboard: GrafanaDashboard = loadDashboard(), vars: QueryVars = {}): { name: string; raw: string; expr: string }[] {
  return (dashboard.annotations?.list ?? []).filter((a) => typeof a.expr === "string" && a.expr).map((a) => ({ name: a.name, raw: a.expr!, expr: substitute(a.expr!, vars) }));
}

// ---- Prometheus rule files and their unit tests

export interface RuleFile {
  groups: { name: string; interval?: string; rules: ({ record: string; expr: string; labels?: Record<string, string> } | { alert: string; expr: string; for?: string; labels?: Record<string, string>; annotations?: Record<string, string> })[] }[];
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
          : { file, group: g.name, kind: "alert" as const, name: r.alert, expr: r.expr, for: r.for, labels: r.labels ?? {}, annotations: r.annotations ?? {} },
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
    alert_rule_test?: { alertname: string; eval_time: string; exp_alerts?: { exp_labels?: Record<string, string>; exp_annotations?: Record<string, string> }[] }[];
  }[];
}

// ---- A PromQL lexer: metric names and label matchers

export interface Selector {
  /** The metric name, or null for a selector with only {__name__=...} or none. */
  name: string | null;
  matchers: { label: string; op: "=" | "!=" | "=~" | "!~"; value: string }[];
}
export interface ExprUse {
  selectors: Selector[];
  /** Label names in by / without / on / ignoring / group_left / group_right lists. */
  groupingLabels: string[];
}

const KEYWORDS = new Set(["by", "without", "on", "ignoring", "group_left", "group_right", "bool", "and", "or", "unless", "offset", "atan2", "inf", "nan", "start", "end"]);
const GROUPING = new Set(["by", "without", "on", "ignoring", "group_left", "group_right"]);

/** The string a PromQL string literal stands for. */
function unquote(lit: string): string {
  const q = lit[0];
  const body = lit.slice(1, -1);
  if (q === "`") return body;
  return body.replace(/\\(.)/g, (_, c: string) => ({ n: "\n", t: "\t", r: "\r" })[c] ?? c);
}

/**
 * Every selector (metric name + matchers) and grouping label in a PromQL
 * expression. Enough of PromQL for what deploy/ writes: it is no validator
 * (promtool is: see test/deploy.int.test.ts).
 */
export function exprUses(expr: string): ExprUse {
  const selectors: Selector[] = [];
  const groupingLabels: string[] = [];
  let i = 0;
  const n = expr.length;
  const ws = () => {
    for (;;) {
      while (i < n && /\s/.test(expr[i])) i++;
      if (expr[i] === "#") {
        while (i < n && expr[i] !== "\n") i++;
        continue;
      }
      return;
    }
  };
  const readString = (): string => {
    const q = expr[i];
    const start = i++;
    while (i < n && expr[i] !== q) i += expr[i] === "\\" && q !== "`" ? 2 : 1;
    if (i >= n) throw new Error(`unterminated string in: ${expr}`);
    i++;
    return unquote(expr.slice(start, i));
  };
  const ident = /[a-zA-Z_:][a-zA-Z0-9_:]*/y;
  const readIdent = (): string | null => {
    ident.lastIndex = i;
    const m = ident.exec(expr);
    if (!m) return null;
    i += m[0].length;
    return m[0];
  };
  const readMatchers = (): Selector["matchers"] => {
    // at "{"
    i++;
    const out: Selector["matchers"] = [];
    for (;;) {
      ws();
      if (expr[i] === "}") {
        i++;
        return out;
      }
      if (expr[i] === ",") {
        i++;
        continue;
      }
      const label = readIdent() ?? (expr[i] === '"' ? readString() : null);
      if (label === null) throw new Error(`bad label matcher at ${i} in: ${expr}`);
      ws();
      const op = /^(=~|!~|!=|=)/.exec(expr.slice(i))?.[1] as Selector["matchers"][number]["op"] | undefined;
      if (!op) throw new Error(`bad label matcher operator at ${i} in: ${expr}`);
      i += op.length;
      ws();
      out.push({ label, op, value: readString() });
    }
  };
  const readLabelList = () => {
    ws();
    if (expr[i] !== "(") return;
    i++;
    for (;;) {
      ws();
      if (expr[i] === ")") {
        i++;
        return;
      }
      if (expr[i] === ",") {
        i++;
        continue;
      }
      const l = readIdent();
      if (l === null) throw new Error(`bad label list at ${i} in: ${expr}`);
      groupingLabels.push(l);
    }
  };
  while (i < n) {
    ws();
    if (i >= n) break;
    const c = expr[i];
    if (c === '"' || c === "'" || c === "`") {
      readString();
      continue;
    }
    if (c === "[") {
      // a range or subquery: durations only
      while (i < n && expr[i] !== "]") i++;
      i++;
      continue;
    }
    if (c === "{") {
      const matchers = readMatchers();
      const byName = matchers.find((m) => m.label === "__name__" && m.op === "=");
      selectors.push({ name: byName ? byName.value : null, matchers: matchers.filter((m) => m !== byName) });
      continue;
    }
    if (/[0-9.]/.test(c)) {
      // a number or a duration (after offset / @)
      while (i < n && /[0-9a-zA-Z_.+-]/.test(expr[i]) && !(/[+-]/.test(expr[i]) && !/[eE]/.test(expr[i - 1]))) i++;
      continue;
    }
    const id = readIdent();
    if (id === null) {
      i++; // an operator or parenthesis
      continue;
    }
    const lower = id.toLowerCase();
    if (GROUPING.has(lower)) {
      readLabelList();
      continue;
    }
    if (KEYWORDS.has(lower)) continue;
    const save = i;
    ws();
    if (expr[i] === "(") continue; // a function or an aggregation
    if (/^(by|without)\b/i.test(expr.slice(i))) continue; // an aggregation written sum by (...) (...)
    i = save;
    ws();
    if (expr[i] === "{") {
      selectors.push({ name: id, matchers: readMatchers() });
    } else {
      selectors.push({ name: id, matchers: [] });
    }
  }
  return { selectors, groupingLabels };
}

/** The metric names an expression reads. */
export function metricNames(expr: string): string[] {
  return [...new Set(exprUses(expr).selectors.map((s) => s.name).filter((s): s is string => s !== null))];
}
