// The sizing model's cases as the tests build them: settings, seconds of load, scan runs, the input.
import { run } from "../../../../test/support/fixtures";
import { emptyLoad } from "../../history/second-load";
import type { SecondLoad } from "../../../schemas/history";
import type { QueryRun } from "../../../schemas/runs";
import type { SizingLever } from "../../../schemas/enums";
import { toSettings } from "../settings";
import { sizeLevers, type SizingInput } from "./index";

export const row = (name: string, setting: string) => ({
  name,
  setting,
  unit: null,
  source: "default",
  pending_restart: false,
  enumvals: null,
  vartype: "string",
});
export const DEFAULTS: Record<string, string> = {
  io_method: "worker",
  io_workers: "3",
  effective_io_concurrency: "16",
  maintenance_io_concurrency: "16",
  io_combine_limit: "16",
  io_max_combine_limit: "16",
};
export const settingsOf = (over: Record<string, string> = {}) =>
  toSettings(Object.entries({ ...DEFAULTS, ...over }).map(([n, v]) => row(n, v)));
export const POOL = { io_workers: "", io_min_workers: "1", io_max_workers: "2" };
export const pool = (over: Record<string, string> = {}) => {
  const s = settingsOf({ ...POOL, ...over });
  delete s.io_workers;
  return s;
};

/** `n` seconds from t = 0, each with `load`. */
export const seconds = (n: number, load: Partial<SecondLoad>, from = 0) =>
  Array.from({ length: n }, (_, i) => ({ t: from + i * 1000, load: { ...emptyLoad(), samples: 10, ...load } }));
export const scanRun = (i: number, over: Partial<QueryRun> = {}): QueryRun =>
  run({
    id: `${i}`,
    query: "SELECT count(*) FROM t",
    queryId: "42",
    startedAt: i * 3000,
    endedAt: i * 3000 + 2000,
    lastSeen: i * 3000 + 2000,
    samples: 20,
    aioWaitSamples: 12,
    aioSamples: 18,
    aioReadSamples: 20,
    sumInFlight: 18 * 10,
    maxInFlight: 14,
    ...over,
  });
export const input = (over: Partial<SizingInput> = {}): SizingInput => ({
  from: 0,
  to: 60_000,
  seconds: seconds(60, {}),
  runs: [],
  settings: [{ t: 0, settings: settingsOf() }],
  labs: [],
  ...over,
});
export const lever = (levers: ReturnType<typeof sizeLevers>, name: SizingLever) => levers.find((l) => l.lever === name)!;
