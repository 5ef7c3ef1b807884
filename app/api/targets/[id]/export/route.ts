import { collectorOr404, parseOr400, route, runtimeOr503, searchParams } from "@/lib/server/http/route";
import { exportFileName, ticksToCsv } from "@/lib/server/payloads/export";
import { ExportQuery, TargetParams } from "@/lib/schemas/params";
import { snapshotPayload } from "@/lib/server/payloads/window";

export const dynamic = "force-dynamic";

/** The window (or a range of it) as a JSON file, or its ticks as CSV. */
export const GET = route(async (request: Request, ctx: { params: Promise<{ id: string }> }) => {
  const { id } = parseOr400(TargetParams, await ctx.params, "id");
  const { format, from, to } = parseOr400(ExportQuery, searchParams(request), "query");
  const runtime = runtimeOr503();
  const collector = collectorOr404(runtime, id);
  const snapshot = snapshotPayload(collector, { from, to });
  const name = exportFileName(id, from, to, format);
  const headers = { "Content-Disposition": `attachment; filename="${name}"`, "Cache-Control": "no-store" };
  if (format === "csv")
    return new Response(ticksToCsv(snapshot.ticks), { headers: { ...headers, "Content-Type": "text/csv; charset=utf-8" } });
  return new Response(JSON.stringify(snapshot), { headers: { ...headers, "Content-Type": "application/json" } });
});
