import { NextResponse } from "next/server";
import { collectorOr404, parseOr400, route, runtimeOr503, searchParams } from "@/lib/server/http/route";
import { TargetParams, WindowQuery } from "@/lib/schemas/params";
import { snapshotPayload } from "@/lib/server/payloads/window";

export const dynamic = "force-dynamic";

export const GET = route(async (request: Request, ctx: { params: Promise<{ id: string }> }) => {
  const { id } = parseOr400(TargetParams, await ctx.params, "id");
  const query = parseOr400(WindowQuery, searchParams(request), "query");
  const runtime = runtimeOr503();
  const collector = collectorOr404(runtime, id);
  return NextResponse.json(snapshotPayload(collector, query), { headers: { "Cache-Control": "no-store" } });
});
