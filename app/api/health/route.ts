import { NextResponse } from "next/server";

export const dynamic = "force-dynamic";

/** The process is serving. Each target's own state is in /api/targets. */
export function GET() {
  return NextResponse.json({ ok: true }, { headers: { "Cache-Control": "no-store" } });
}
