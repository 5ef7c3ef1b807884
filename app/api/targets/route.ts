import { NextResponse } from "next/server";
import { route, runtimeOr503 } from "@/lib/http";
import type { TargetsResponse } from "@/lib/schemas/window";

export const dynamic = "force-dynamic";

export const GET = route(() => {
  const runtime = runtimeOr503();
  const body: TargetsResponse = { targets: [...runtime.collectors.values()].map((c) => c.info()) };
  return NextResponse.json(body, { headers: { "Cache-Control": "no-store" } });
});
