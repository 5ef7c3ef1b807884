// The PromQL reader on an expression with every construct deploy/ writes:
// aggregations with grouping, matchers, ranges, offsets, comments, numbers.
import { describe, expect, it } from "vitest";
import { exprUses, metricNames } from "./promql";

describe("the PromQL reader", () => {
  it("finds names, matchers and grouping labels", () => {
    const u = exprUses(
      'sum by (target, mode) (rate(inflight_read_wait_samples_total{mode="async",target=~"a|b"}[5m] offset 1m)) / on (target) group_left () (sum without (instance) (rate(inflight_samples_total[1m])) > 0) # inflight_not_a_metric\n and up == 1e-3',
    );
    expect(u.selectors.map((s) => s.name)).toEqual(["inflight_read_wait_samples_total", "inflight_samples_total", "up"]);
    expect(u.selectors[0].matchers).toEqual([
      { label: "mode", op: "=", value: "async" },
      { label: "target", op: "=~", value: "a|b" },
    ]);
    expect(u.groupingLabels).toEqual(["target", "mode", "target", "instance"]);
    expect(metricNames('{__name__="inflight_target_up"}')).toEqual(["inflight_target_up"]);
  });
});
