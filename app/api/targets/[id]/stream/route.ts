import { clientOf } from "@/lib/server/http/gate";
import { route, runtimeOr503, searchParams } from "@/lib/server/http/route";
import { SSE_HEADERS, admitStream } from "@/lib/server/http/stream-request";
import { streamFor } from "@/lib/server/payloads/stream";

export const dynamic = "force-dynamic";

/**
 * SSE: every tick and pg_stat_io delta as it is sampled (`id:` = its seq),
 * plus the target's state, settings and query runs as they change. A client
 * reconnecting with Last-Event-ID (or ?since=) gets what it missed. Streams
 * are capped in all and per client address (INFLIGHT_MAX_STREAMS,
 * INFLIGHT_MAX_STREAMS_PER_CLIENT): past a cap, 503 or 429 with Retry-After.
 * `npm start` serves this path before Next, the same way
 * (lib/server/http/direct-stream.ts); this route serves it under `next dev`.
 */
export const GET = route(async (request: Request, ctx: { params: Promise<{ id: string }> }) => {
  const ask = {
    params: await ctx.params,
    query: searchParams(request),
    lastEventId: request.headers.get("last-event-id"),
    client: clientOf(request.headers),
  };
  const { collector, since, release } = admitStream(runtimeOr503(), ask);
  return new Response(streamFor(collector, since, request.signal, release), { headers: SSE_HEADERS });
});
