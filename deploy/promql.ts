// A small PromQL reader: the metric names, label matchers and grouping labels
// an expression uses, so tests can hold deploy/'s rules and panels to the
// /metrics contract. Enough of PromQL for what deploy/ writes; promtool is
// the validator (test/deploy.int.test.ts).

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

const KEYWORDS = new Set([
  "by",
  "without",
  "on",
  "ignoring",
  "group_left",
  "group_right",
  "bool",
  "and",
  "or",
  "unless",
  "offset",
  "atan2",
  "inf",
  "nan",
  "start",
  "end",
]);
const GROUPING = new Set(["by", "without", "on", "ignoring", "group_left", "group_right"]);

/** The string a PromQL string literal stands for. */
function unquote(lit: string): string {
  const q = lit[0];
  const body = lit.slice(1, -1);
  if (q === "`") return body;
  return body.replace(/\\(.)/g, (_, c: string) => ({ n: "\n", t: "\t", r: "\r" })[c] ?? c);
}

/** Every selector (metric name + matchers) and grouping label in a PromQL expression. */
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
  return [
    ...new Set(
      exprUses(expr)
        .selectors.map((s) => s.name)
        .filter((s): s is string => s !== null),
    ),
  ];
}
