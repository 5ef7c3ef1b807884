import { NextResponse } from "next/server";
import { fleetEntry } from "@/lib/fleet";
import { route, runtimeOr503 } from "@/lib/http";
import { redactQuery } from "@/lib/redact";
import type { FleetResponse } from "@/lib/schemas/window";

export const dynamic = "force-dynamic";

/** Every target at a glance, for the fleet page (polled; no SSE per target). */
export const GET = route(() => {
  const runtime = runtimeOr503();
  const now = Date.now();
  const targets = [...runtime.collectors.values()].map((c) => {
    const entry = fleetEntry(c, now);
    if (runtime.config.redact && entry.busiestQuery) entry.busiestQuery.query = redactQuery(entry.busiestQuery.query, undefined);
    return entry;
  });
  const body: FleetResponse = { targets };
  return NextResponse.json(body, { headers: { "Cache-Control": "no-store" } });
});
