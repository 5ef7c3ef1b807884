import { NextResponse } from "next/server";
import { HttpError, parseOr400, route, searchParams } from "@/lib/server/http/route";
import { isLabBusyError } from "@/lib/server/lab/demo-lab";
import { jsonBody, labOr404 } from "@/lib/server/http/lab-routes";
import { isLabInputError } from "@/lib/server/lab/statement";
import { LabStartBody, NoQuery, TargetParams } from "@/lib/schemas/params";
import type { LabState } from "@/lib/schemas/lab";

export const dynamic = "force-dynamic";

const NO_STORE = { "Cache-Control": "no-store" };

/** The demo lab's state: idle, its progress while it runs, then its table. */
export const GET = route(async (request: Request, ctx: { params: Promise<{ id: string }> }) => {
  const { id } = parseOr400(TargetParams, await ctx.params, "id");
  parseOr400(NoQuery, searchParams(request), "query");
  const body: LabState = labOr404(id).state;
  return NextResponse.json(body, { headers: NO_STORE });
});

/** Starts the labs' A/B on the demo server: checked first (a 400 names the field), then run in the background. */
export const POST = route(async (request: Request, ctx: { params: Promise<{ id: string }> }) => {
  const { id } = parseOr400(TargetParams, await ctx.params, "id");
  const input = parseOr400(LabStartBody, await jsonBody(request), "body");
  const lab = labOr404(id);
  let state: LabState;
  try {
    state = await lab.start(input);
  } catch (err) {
    if (isLabInputError(err)) throw new HttpError("bad_request", err.message, err.field);
    if (isLabBusyError(err)) throw new HttpError("conflict", err.message);
    throw new HttpError("unavailable", `the demo server could not be asked: ${((err as Error).message ?? String(err)).split("\n")[0]}`);
  }
  return NextResponse.json(state, { status: 202, headers: NO_STORE });
});
