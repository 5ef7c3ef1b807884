import type { DemoRestartBody } from "../../schemas/params";
import "server-only";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Config } from "../config/config";
import type { Collector } from "../collector/collector";
import type { HistoryStore } from "../history/store";
import type { SampleStore } from "../history/samples";
import type { DemoLab } from "../lab/demo-lab";
import type { FailureThrottle } from "./throttle";
import type { StreamLimits } from "./streams";
import type { LoopLag } from "./loop-lag";

/** What the demo target offers beyond a configured one: a restart control. */
export interface DemoControl {
  /** ALTER SYSTEM the given io settings, then restart the embedded server. */
  restartWith(settings: DemoRestartBody): Promise<void>;
  readonly busy: boolean;
}

export interface Runtime {
  config: Config;
  collectors: Map<string, Collector>;
  /** the history on disk (its status says when it is off, and why) */
  history: HistoryStore;
  /** the history on disk: a second a row, the runs and the findings (issue 22) */
  samples: SampleStore;
  demo: DemoControl | null;
  /** the labs' A/B on the demo server, once it runs */
  lab: DemoLab | null;
  /** the embedded server's start while it is under way (a shutdown waits for it) */
  demoStarting: Promise<unknown> | null;
  /** stops the embedded demo (and its workload) once it has started */
  stopDemo: (() => Promise<void>) | null;
  startedAt: number;
  /** open SSE streams against INFLIGHT_MAX_STREAMS(_PER_CLIENT) */
  streams: StreamLimits;
  /** the pause after wrong tokens, per client */
  tokenChecks: FailureThrottle;
  loopLag: LoopLag;
  /** scripts/start.mjs asks before Next sees a request: a stream is served here (lib/server/http/direct-stream.ts), true; false for anything else */
  serveStream(req: IncomingMessage, res: ServerResponse, client: string): Promise<boolean>;
}

// Next builds instrumentation and route handlers as separate module graphs:
// the state they share lives on globalThis under one Symbol.for key.
const KEY = Symbol.for("inflight.runtime");
type Holder = { [KEY]?: Runtime };

export function getRuntime(): Runtime | null {
  return (globalThis as Holder)[KEY] ?? null;
}

/** Creates the runtime once; a second call returns the first. */
export function createRuntime(make: () => Runtime): { runtime: Runtime; created: boolean } {
  const holder = globalThis as Holder;
  const existing = holder[KEY];
  if (existing) return { runtime: existing, created: false };
  const runtime = make();
  holder[KEY] = runtime;
  return { runtime, created: true };
}
