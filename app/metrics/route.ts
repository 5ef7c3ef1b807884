import { route } from "@/lib/server/http/route";
import { metricsText } from "@/lib/server/metrics/metrics";

export const dynamic = "force-dynamic";

/** Prometheus text format: every figure of every target. */
export const GET = route(async () => {
  const { body, contentType } = await metricsText();
  return new Response(body, { headers: { "Content-Type": contentType, "Cache-Control": "no-store" } });
});
