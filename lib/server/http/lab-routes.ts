import "server-only";
import { HttpError, collectorOr404, runtimeOr503 } from "./route";
import type { DemoLab } from "../lab/demo-lab";

/** The demo target's lab, or the error that says why there is none. */
export function labOr404(id: string): DemoLab {
  const runtime = runtimeOr503();
  const collector = collectorOr404(runtime, id);
  if (!collector.options.demo)
    throw new HttpError("not_found", "the lab exists only for the demo target: for a cluster of your own, use npm run lab", "id");
  if (!runtime.lab) throw new HttpError("not_ready", "the demo server is not running yet");
  return runtime.lab;
}

/** A state-changing request's JSON body; anything else is a 400 naming the body. */
export async function jsonBody(request: Request): Promise<unknown> {
  if (!/^application\/json\b/i.test(request.headers.get("content-type") ?? ""))
    throw new HttpError("bad_request", "body: must be JSON, sent as Content-Type: application/json", "body");
  try {
    return await request.json();
  } catch {
    throw new HttpError("bad_request", "body: must be JSON", "body");
  }
}
