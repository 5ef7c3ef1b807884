import { parseOr400, route, searchParams } from "@/lib/server/http/route";
import { runsCsv } from "@/lib/model/lab/export";
import { labOr404 } from "@/lib/server/http/lab-routes";
import { LabExportQuery, TargetParams } from "@/lib/schemas/params";

export const dynamic = "force-dynamic";

/** The last lab as a JSON file (its table and every run's EXPLAIN output), or its runs as CSV. */
export const GET = route(async (request: Request, ctx: { params: Promise<{ id: string }> }) => {
  const { id } = parseOr400(TargetParams, await ctx.params, "id");
  const { format } = parseOr400(LabExportQuery, searchParams(request), "query");
  const lab = labOr404(id);
  const stamp = new Date(lab.state.startedAt ?? Date.now()).toISOString().replace(/[:.]/g, "-");
  const headers = { "Content-Disposition": `attachment; filename="inflight-lab-${id}-${stamp}.${format}"`, "Cache-Control": "no-store" };
  if (format === "csv")
    return new Response(runsCsv(lab.state.runs), { headers: { ...headers, "Content-Type": "text/csv; charset=utf-8" } });
  return new Response(JSON.stringify(lab.exportJson()), { headers: { ...headers, "Content-Type": "application/json" } });
});
