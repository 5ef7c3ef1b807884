// The Grafana dashboard's shape: its variables, every panel's datasource and
// queries, the grid, the panels the README promises, and how Grafana's
// variables are replaced in its queries (deploy/queries.ts).
import { describe, expect, it } from "vitest";
import { allPanels, loadDashboard, panelQueries, substitute } from "../deploy/queries";

const dashboard = loadDashboard();

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
    for (const want of [
      /active sessions by wait event/i,
      /reads in flight/i,
      /busy vs alive/i,
      /read-wait share/i,
      /io_method/,
      /pending restart/i,
      /read throughput/i,
      /average read size/i,
      /findings/i,
      /collection health/i,
      /watching cost/i,
    ]) {
      expect(
        titles.some((t) => want.test(t)),
        String(want),
      ).toBe(true);
    }
    const aas = allPanels(dashboard).find((p) => /active sessions/i.test(p.title ?? ""));
    expect((aas?.fieldConfig as { defaults: { custom: { stacking: { mode: string } } } }).defaults.custom.stacking.mode).toBe("normal");
  });

  it("substitutes Grafana's variables", () => {
    expect(substitute('rate(x{target=~"$target"}[$__rate_interval]) [${__range}] [$__interval]', { target: "127.0.0.1" })).toBe(
      'rate(x{target=~"127\\\\.0\\\\.0\\\\.1"}[1m]) [1h] [15s]',
    );
    expect(() => substitute("$nope")).toThrow(/unknown Grafana variable/);
    const qs = panelQueries(dashboard, { target: "east", rateInterval: "2m" });
    expect(qs.length).toBeGreaterThanOrEqual(20);
    for (const q of qs) expect(q.expr, q.panel).not.toContain("$");
  });
});
