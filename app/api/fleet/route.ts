import { NextResponse } from "next/server";
import { fleetEntry } from "@/lib/server/payloads/fleet";
import { restartSummary } from "@/lib/server/history/compare";
import { hourFinding } from "@/lib/server/history/range";
import { route, runtimeOr503 } from "@/lib/server/http/route";
import type { FleetResponse } from "@/lib/schemas/api";

export const dynamic = "force-dynamic";

/** Every target at a glance, for the fleet page (polled; no SSE per target). */
export const GET = route(() => {
  const runtime = runtimeOr503();
  const now = Date.now();
  const targets = [...runtime.collectors.values()].map((c) => ({
    ...fleetEntry(c, now, restartSummary(runtime.history, c.id, now, c.window.restarts.at(-1))),
    hourFinding: hourFinding(runtime.history, runtime.samples, c.id, now),
  }));
  const body: FleetResponse = { targets };
  return NextResponse.json(body, { headers: { "Cache-Control": "no-store" } });
});
