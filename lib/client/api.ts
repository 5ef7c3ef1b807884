// Browser-side calls to inflight's own API, parsed with the wire schemas.
import type { z } from "zod";
import { ErrorBody } from "@/lib/schemas/api";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

async function failure(res: Response): Promise<ApiError> {
  const body = ErrorBody.safeParse(await res.json().catch(() => null));
  return body.success
    ? new ApiError(res.status, body.data.error.code, body.data.error.message)
    : new ApiError(res.status, "http", `${res.status} ${res.statusText || "error"}`);
}

/** GET a JSON body and parse it with `schema`; an error envelope becomes an ApiError. */
export async function getJson<S extends z.ZodType>(
  url: string,
  schema: S,
  signal?: AbortSignal,
): Promise<{ data: z.infer<S>; response: Response }> {
  const res = await fetch(url, { signal, cache: "no-store", headers: { Accept: "application/json" } });
  if (!res.ok) throw await failure(res);
  const parsed = schema.safeParse(await res.json());
  if (!parsed.success)
    throw new ApiError(
      res.status,
      "contract",
      `${url}: unexpected response (${parsed.error.issues[0]?.path.join(".")}: ${parsed.error.issues[0]?.message})`,
    );
  return { data: parsed.data, response: res };
}

export async function postJson(url: string, body: unknown): Promise<void> {
  const res = await fetch(url, {
    method: "POST",
    cache: "no-store",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw await failure(res);
}

export const targetPath = (id: string) => `/api/targets/${encodeURIComponent(id)}`;

/**
 * Server clock minus browser clock, from a response's Date header (1 s
 * resolution); 0 when there is none. Requests that name server times (?from=)
 * use it so a skewed browser clock does not empty them.
 */
export function clockOffset(dateHeader: string | null, sentAt: number, receivedAt: number): number {
  const server = dateHeader ? Date.parse(dateHeader) : Number.NaN;
  if (!Number.isFinite(server)) return 0;
  // The header is truncated to the second: its middle is the best guess.
  const offset = server + 500 - (sentAt + receivedAt) / 2;
  return Math.abs(offset) < 2000 ? 0 : Math.round(offset);
}
