import "server-only";
import type { Registry } from "prom-client";
import { hasPool } from "../../model/window/major";
import type { Collector } from "../collector/collector";
import { getRuntime } from "../runtime/runtime";

// How every family on /metrics is read: at scrape time, its values from each collector, labelled with the collector's target.

type Labels = Record<string, string>;
interface Value {
  labels: Labels;
  value: number;
  metricName?: string;
}
type Type = "gauge" | "counter" | "histogram";

/** A metric family read at scrape time (prom-client calls get() and formats the values). */
export function family(registry: Registry, name: string, help: string, type: Type, values: (c: Collector) => Value[]) {
  const metric = {
    name,
    help,
    type,
    aggregator: "sum",
    get: () => ({ name, help, type, aggregator: "sum", values: collectors().flatMap(values) }),
    reset: () => undefined,
  };
  registry.registerMetric(metric as unknown as Parameters<Registry["registerMetric"]>[0]);
}

function collectors(): Collector[] {
  return [...(getRuntime()?.collectors.values() ?? [])];
}

export const one = (c: Collector, value: number, labels: Labels = {}): Value => ({ labels: { target: c.id, ...labels }, value });
/** A series of 19's self-sizing pool only: none on 18, whose io_workers is fixed. */
export const onPool = (c: Collector, value: number): Value[] => (hasPool(c.window.settings) ? [one(c, value)] : []);
