import { NextResponse } from "next/server";
import { collectorOr404, parseOr400, route, runtimeOr503, searchParams } from "@/lib/server/http/route";
import { findingsPayload } from "@/lib/server/payloads/window";
import { NoQuery, TargetParams } from "@/lib/schemas/params";

export const dynamic = "force-dynamic";

/** What the window means, most severe first (the same list the page leads with). */
export const GET = route(async (request: Request, ctx: { params: Promise<{ id: string }> }) => {
  const { id } = parseOr400(TargetParams, await ctx.params, "id");
  parseOr400(NoQuery, searchParams(request), "query");
  const collector = collectorOr404(runtimeOr503(), id);
  return NextResponse.json(findingsPayload(collector), { headers: { "Cache-Control": "no-store" } });
});
