import "server-only";
import { LastEventId, StreamQuery, TargetParams } from "../../schemas/params";
import type { Collector } from "../collector/collector";
import type { Runtime } from "../runtime/runtime";
import { HttpError, collectorOr404, parseOr400 } from "./route";

// What a request for a target's SSE stream asks, checked, and its place under
// the caps: shared by the route (app/api/targets/[id]/stream, `next dev`) and
// the direct path scripts/start.mjs serves it by (direct-stream.ts).

export const SSE_HEADERS: Readonly<Record<string, string>> = {
  "Content-Type": "text/event-stream; charset=utf-8",
  // no-transform: else a proxy (or Next) may compress the stream and hold events back.
  "Cache-Control": "no-cache, no-transform",
  Connection: "keep-alive",
  "X-Accel-Buffering": "no",
};

export interface StreamAsk {
  /** the route's parameters: { id } */
  params: unknown;
  query: Record<string, string>;
  /** the Last-Event-ID header, if sent */
  lastEventId: string | null;
  client: string;
}

export interface AdmittedStream {
  collector: Collector;
  /** the last seq the viewer has (Last-Event-ID, else ?since=), null for none */
  since: number | null;
  /** frees the place under the caps: once, when the stream ends */
  release: () => void;
}

/** Parses and checks a stream request, then takes a place under the caps; an HttpError says why not. */
export function admitStream(runtime: Pick<Runtime, "collectors" | "streams">, ask: StreamAsk): AdmittedStream {
  const { id } = parseOr400(TargetParams, ask.params, "id");
  const query = parseOr400(StreamQuery, ask.query, "query");
  const lastEventId =
    ask.lastEventId === null || ask.lastEventId === "" ? undefined : parseOr400(LastEventId, ask.lastEventId, "Last-Event-ID");
  const collector = collectorOr404(runtime, id);
  const admission = runtime.streams.admit(ask.client);
  if ("refused" in admission) {
    const { code, message } = runtime.streams.error(admission);
    throw new HttpError(code, message, undefined, { "Retry-After": String(admission.retryAfterS) });
  }
  return { collector, since: lastEventId ?? query.since ?? null, release: admission.release };
}
