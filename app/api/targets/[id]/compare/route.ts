import { NextResponse } from "next/server";
import { HttpError, collectorOr404, parseOr400, route, runtimeOr503, searchParams } from "@/lib/server/http/route";
import { comparePayload } from "@/lib/server/history/compare";
import { LEGACY_PREFIX } from "@/lib/server/history/schema";
import { CompareQuery, TargetParams } from "@/lib/schemas/params";
import type { CompareResponse } from "@/lib/schemas/compare";

export const dynamic = "force-dynamic";

/** Before and after a restart (default: the last one, an hour each side), from the history on disk. */
export const GET = route(async (request: Request, ctx: { params: Promise<{ id: string }> }) => {
  const { id } = parseOr400(TargetParams, await ctx.params, "id");
  const query = parseOr400(CompareQuery, searchParams(request), "query");
  const runtime = runtimeOr503();
  const collector = collectorOr404(runtime, id);
  const status = runtime.history.status;
  if (!status.on) throw new HttpError("unavailable", `the history is off: ${status.reason}`);
  // Only this target's own: the history of its server, or the one its name had before histories were kept by server.
  if (query.history !== undefined && query.history !== `${LEGACY_PREFIX}${id}`)
    throw new HttpError(
      "bad_request",
      `history: only ${LEGACY_PREFIX}${id} (the history kept under this target's name) may be named`,
      "history",
    );
  const body: CompareResponse = comparePayload(runtime.history, {
    target: id,
    history: query.history ?? runtime.history.historyOf(id),
    at: query.at,
    beforeMs: query.before,
    afterMs: query.after,
    now: Date.now(),
    redact: collector.redact,
  });
  return NextResponse.json(body, { headers: { "Cache-Control": "no-store" } });
});
