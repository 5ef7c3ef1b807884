import { clientOf } from "@/lib/server/http/gate";
import { HttpError, collectorOr404, parseOr400, route, runtimeOr503, searchParams } from "@/lib/server/http/route";
import { LastEventId, StreamQuery, TargetParams } from "@/lib/schemas/params";
import { streamFor } from "@/lib/server/payloads/stream";

export const dynamic = "force-dynamic";

/**
 * SSE: every tick and pg_stat_io delta as it is sampled (`id:` = its seq),
 * plus the target's state, settings and query runs as they change. A client
 * reconnecting with Last-Event-ID (or ?since=) gets what it missed. Streams
 * are capped in all and per client address (INFLIGHT_MAX_STREAMS,
 * INFLIGHT_MAX_STREAMS_PER_CLIENT): past a cap, 503 or 429 with Retry-After.
 */
export const GET = route(async (request: Request, ctx: { params: Promise<{ id: string }> }) => {
  const { id } = parseOr400(TargetParams, await ctx.params, "id");
  const query = parseOr400(StreamQuery, searchParams(request), "query");
  const header = request.headers.get("last-event-id");
  const lastEventId = header === null || header === "" ? undefined : parseOr400(LastEventId, header, "Last-Event-ID");
  const runtime = runtimeOr503();
  const collector = collectorOr404(runtime, id);
  const since = lastEventId ?? query.since ?? null;
  const admission = runtime.streams.admit(clientOf(request.headers));
  if ("refused" in admission) {
    const { code, message } = runtime.streams.error(admission);
    throw new HttpError(code, message, undefined, { "Retry-After": String(admission.retryAfterS) });
  }
  return new Response(streamFor(collector, since, request.signal, admission.release), {
    headers: {
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-cache, no-transform",
      Connection: "keep-alive",
      "X-Accel-Buffering": "no",
    },
  });
});
