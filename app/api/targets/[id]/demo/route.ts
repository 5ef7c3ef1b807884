import { NextResponse } from "next/server";
import { HttpError, collectorOr404, parseOr400, route, runtimeOr503 } from "@/lib/server/http/route";
import { DemoRestartBody, TargetParams } from "@/lib/schemas/params";
import { workerSettingsProblem } from "@/lib/model/window/major";

export const dynamic = "force-dynamic";

/** Demo target only: set io_method and the io workers (io_workers on 18, io_min_workers / io_max_workers on 19) and restart the embedded server. */
export const POST = route(async (request: Request, ctx: { params: Promise<{ id: string }> }) => {
  const { id } = parseOr400(TargetParams, await ctx.params, "id");
  let raw: unknown;
  try {
    raw = await request.json();
  } catch {
    throw new HttpError("bad_request", "body: must be JSON", "body");
  }
  const body = parseOr400(DemoRestartBody, raw, "body");
  const runtime = runtimeOr503();
  const collector = collectorOr404(runtime, id);
  if (!collector.options.demo) throw new HttpError("not_found", "restart controls exist only for the demo target", "id");
  if (!runtime.demo) throw new HttpError("not_ready", "the demo server is not running yet");
  if (runtime.demo.busy) throw new HttpError("conflict", "a restart is already under way");
  if (runtime.lab?.busy) throw new HttpError("conflict", "the lab is running: it restarts the server itself");
  const offered = collector.window.settings.io_method?.enumvals;
  if (body.io_method && offered && !offered.includes(body.io_method)) {
    throw new HttpError("bad_request", `io_method: this build offers ${offered.join(", ")}`, "io_method");
  }
  const problem = workerSettingsProblem(collector.window.settings, body);
  if (problem) throw new HttpError("bad_request", problem.message, problem.field);
  try {
    await runtime.demo.restartWith(body);
  } catch (err) {
    throw new HttpError("internal", `the demo server could not be restarted: ${(err as Error).message.split("\n")[0]}`);
  }
  return NextResponse.json({ ok: true }, { status: 200 });
});
