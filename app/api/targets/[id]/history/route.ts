import { NextResponse } from "next/server";
import { HttpError, collectorOr404, parseOr400, route, runtimeOr503, searchParams } from "@/lib/server/http/route";
import { historyPayload } from "@/lib/server/history/range";
import { HistoryQuery, TargetParams } from "@/lib/schemas/params";
import type { HistoryResponse } from "@/lib/schemas/history";

export const dynamic = "force-dynamic";

/** The history of [from, to) from disk: a tick a second, the runs and the findings as they held. */
export const GET = route(async (request: Request, ctx: { params: Promise<{ id: string }> }) => {
  const { id } = parseOr400(TargetParams, await ctx.params, "id");
  const query = parseOr400(HistoryQuery, searchParams(request), "query");
  const runtime = runtimeOr503();
  collectorOr404(runtime, id);
  const status = runtime.samples.status(id);
  if (!status.on) throw new HttpError("unavailable", `the history is not kept: ${status.reason}`);
  const body: HistoryResponse = historyPayload(runtime.history, runtime.samples, {
    target: id,
    from: query.from,
    to: query.to,
    now: Date.now(),
  });
  return NextResponse.json(body, { headers: { "Cache-Control": "no-store" } });
});
