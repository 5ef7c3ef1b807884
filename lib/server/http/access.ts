import "server-only";
import type { Runtime } from "../runtime/runtime";
import { checkCredentials, isOpenPath } from "./auth";
import { checkHost, checkPath, checkWrite, clientOf, type Refusal } from "./gate";

// The gate every request passes, whoever serves it: proxy.ts in front of
// Next's routes, and the SSE streams' direct path (direct-stream.ts). The
// Host it was sent to, a path that decodes, a state-changing request from
// this dashboard's own page, the token when INFLIGHT_AUTH_TOKEN is set.

export interface Asked {
  method: string;
  pathname: string;
  headers: Headers;
  /** the sign-in cookie's value, if sent */
  cookie: string | undefined;
}

export function isApiPath(pathname: string): boolean {
  return pathname.startsWith("/api/") || pathname === "/metrics";
}

const UNAUTHORIZED: Refusal = {
  code: "unauthorized",
  message: "sign in or send Authorization: Bearer <INFLIGHT_AUTH_TOKEN>",
  headers: { "WWW-Authenticate": 'Bearer realm="inflight"' },
};

/** null: let it through; a refusal to answer with; "sign-in": a page asked for without the token. */
export async function checkAccess(runtime: Pick<Runtime, "config" | "tokenChecks">, asked: Asked): Promise<Refusal | "sign-in" | null> {
  const { config } = runtime;
  const { method, pathname, headers } = asked;
  const refusal = checkHost(headers, config) ?? checkPath(pathname) ?? checkWrite(method, pathname, headers);
  if (refusal) return refusal;
  const token = config.authToken;
  if (!token || isOpenPath(pathname)) return null;
  const outcome = await checkCredentials(
    { authorization: headers.get("authorization"), cookie: asked.cookie },
    token,
    runtime.tokenChecks,
    clientOf(headers),
  );
  if ("busy" in outcome) {
    return {
      code: "too_many_requests",
      message: "too many wrong tokens from this address; wait and try again",
      headers: { "Retry-After": String(outcome.retryAfterS) },
    };
  }
  if (outcome.ok) return null;
  return isApiPath(pathname) ? UNAUTHORIZED : "sign-in";
}
