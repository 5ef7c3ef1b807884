import { NextResponse } from "next/server";
import { collectorOr404, parseOr400, route, runtimeOr503, searchParams } from "@/lib/http";
import { TargetParams, WindowQuery } from "@/lib/params";
import { windowSnapshot } from "@/lib/snapshot";

export const dynamic = "force-dynamic";

export const GET = route(async (request: Request, ctx: { params: Promise<{ id: string }> }) => {
  const { id } = parseOr400(TargetParams, await ctx.params, "id");
  const query = parseOr400(WindowQuery, searchParams(request), "query");
  const runtime = runtimeOr503();
  const collector = collectorOr404(runtime, id);
  return NextResponse.json(windowSnapshot(collector, query, runtime.config.redact), { headers: { "Cache-Control": "no-store" } });
});
