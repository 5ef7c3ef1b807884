import { NextResponse } from "next/server";
import { collectorOr404, parseOr400, route, runtimeOr503, searchParams } from "@/lib/server/http/route";
import { historyInput, liveInput, sizingPayload } from "@/lib/server/history/sizing";
import { SIZING_RANGES, SizingQuery, TargetParams } from "@/lib/schemas/params";
import type { SizingResponse } from "@/lib/schemas/sizing";

export const dynamic = "force-dynamic";

/** The sizing view over [from, to] (default the last hour): per lever a verdict, from the history, or the live window when the history is off. */
export const GET = route(async (request: Request, ctx: { params: Promise<{ id: string }> }) => {
  const { id } = parseOr400(TargetParams, await ctx.params, "id");
  const query = parseOr400(SizingQuery, searchParams(request), "query");
  const runtime = runtimeOr503();
  const collector = collectorOr404(runtime, id);
  const now = Date.now();
  const to = query.to ?? now;
  const q = { target: id, from: query.from ?? to - SIZING_RANGES[query.range ?? "1h"], to, redact: collector.redact };
  const status = runtime.samples.status(id);
  const body: SizingResponse = status.on
    ? sizingPayload(historyInput(runtime.history, runtime.samples, q), q, "history", null)
    : sizingPayload(
        liveInput(collector.window, runtime.history, q),
        q,
        "live",
        `The history is not kept (${status.reason}): sized from the live window only (what it still holds of this range), with the settings in force now.`,
      );
  return NextResponse.json(body, { headers: { "Cache-Control": "no-store" } });
});
