import { NextResponse } from "next/server";
import { route, runtimeOr503 } from "@/lib/server/http/route";
import type { TargetsResponse } from "@/lib/schemas/api";

export const dynamic = "force-dynamic";

export const GET = route(() => {
  const runtime = runtimeOr503();
  const body: TargetsResponse = { targets: [...runtime.collectors.values()].map((c) => c.info()) };
  return NextResponse.json(body, { headers: { "Cache-Control": "no-store" } });
});
