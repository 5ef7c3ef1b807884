import "server-only";
import { NextResponse } from "next/server";
import type { z } from "zod";
import type { ErrorBody } from "../../schemas/api";
import { getRuntime, type Runtime } from "../runtime/runtime";
import type { Collector } from "../collector/collector";
import { ERROR_STATUS, type ErrorCode } from "./errors";

// One shape for every route handler: parse (zod) -> check -> call lib -> respond.

export { ERROR_STATUS, type ErrorCode } from "./errors";

export class HttpError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly field?: string,
    /** sent with the error (Retry-After) */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

/** The one JSON error envelope. */
export function errorBody(code: ErrorCode, message: string, field?: string): ErrorBody {
  return { error: { code, message, ...(field ? { field } : {}) } };
}

export function errorResponse(
  code: ErrorCode,
  message: string,
  field?: string,
  headers: Record<string, string> = {},
): NextResponse<ErrorBody> {
  return NextResponse.json(errorBody(code, message, field), {
    status: ERROR_STATUS[code],
    headers: { "Cache-Control": "no-store", ...headers },
  });
}

/** Parses input with zod; a failure is a 400 naming the field. */
export function parseOr400<T extends z.ZodType>(schema: T, input: unknown, where: string): z.infer<T> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  // An unknown parameter is named by its own key, not by the object holding it.
  const unknown = issue.code === "unrecognized_keys" ? issue.keys[0]?.slice(0, 40) : undefined;
  const field = unknown ?? (issue.path.length ? issue.path.join(".") : where);
  throw new HttpError("bad_request", `${field}: ${unknown ? "is not a parameter of this route" : issue.message}`, field);
}

export function runtimeOr503(): Runtime {
  const runtime = getRuntime();
  if (!runtime) throw new HttpError("not_ready", "inflight is starting");
  return runtime;
}

export function collectorOr404(runtime: Pick<Runtime, "collectors">, id: string): Collector {
  const collector = runtime.collectors.get(id);
  if (!collector) throw new HttpError("not_found", `no target with id "${id}"`, "id");
  return collector;
}

/** Wraps a handler: HttpErrors become the JSON envelope; anything else a 500
 * whose details stay in the server log. */
export function route<A extends unknown[]>(handler: (...args: A) => Promise<Response> | Response) {
  return async (...args: A): Promise<Response> => {
    try {
      return await handler(...args);
    } catch (err) {
      if (err instanceof HttpError) return errorResponse(err.code, err.message, err.field, err.headers);
      console.error("[inflight] route failed:", (err as Error)?.stack ?? err);
      return errorResponse("internal", "internal error");
    }
  };
}

export function searchParams(request: Request): Record<string, string> {
  return Object.fromEntries(new URL(request.url).searchParams);
}
