import "server-only";
import type { Config } from "../config/config";
import { hostServed, originMatchesHost } from "../config/hosts";
import type { ErrorCode } from "./errors";

// The checks proxy.ts makes before any route runs, each a pure function of
// the request's method, path and headers: who it is addressed to (Host),
// whether its path can be decoded, and, for a request that changes state,
// that this dashboard's own page sent it, with a body of the kind the route
// takes and of a sane size.

export interface Refusal {
  code: ErrorCode;
  message: string;
  field?: string;
  headers?: Record<string, string>;
}

/** The largest request body taken. inflight's bodies are a few dozen bytes;
 * Next buffers a body for the proxy up to next.config's
 * proxyClientMaxBodySize, set to this, and past it would hand the route a
 * cut body (read as "not JSON"). */
export const MAX_BODY_BYTES = 64 * 1024;

/** Set by scripts/start.mjs from the socket (any value a client sends is replaced). */
export const CLIENT_HEADER = "x-inflight-client";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
/** Routes that take an HTML form's body; every other state-changing route takes JSON. */
const FORM_ROUTES = new Set(["/api/auth/signin"]);

export function clientOf(headers: Headers): string {
  return headers.get(CLIENT_HEADER) ?? "unknown";
}

/** A rebinding page's requests carry its own name in Host: only the names served get an answer. */
export function checkHost(headers: Headers, config: Pick<Config, "servedHosts" | "port">): Refusal | null {
  if (hostServed(headers.get("host"), config.servedHosts, config.port)) return null;
  return {
    code: "wrong_host",
    message: "this server does not answer to that Host name; list the names it is reached by in INFLIGHT_ALLOWED_HOSTS",
  };
}

/** Next decodes route parameters after the proxy, and a malformed one would be its plain-text 500. */
export function checkPath(pathname: string): Refusal | null {
  const segments = pathname.split("/");
  for (let i = 1; i < segments.length; i++) {
    try {
      decodeURIComponent(segments[i]);
    } catch {
      const isId = (segments[1] === "api" && segments[2] === "targets" && i === 3) || (segments[1] === "targets" && i === 2);
      const field = isId ? "id" : "path";
      return { code: "bad_request", message: `${field}: is not valid percent-encoding`, field };
    }
  }
  return null;
}

/**
 * Sent by this dashboard's own page: an Origin naming the Host the request
 * went to, or, where the browser sends no usable Origin, its own
 * Sec-Fetch-Site: same-origin. A page on another port of the same address
 * is "same-site", not same-origin: it is refused too.
 */
export function isSameOrigin(headers: Headers): boolean {
  const origin = headers.get("origin");
  if (origin !== null && origin !== "null") return originMatchesHost(origin, headers.get("host"));
  return headers.get("sec-fetch-site") === "same-origin";
}

/** A state-changing request: same origin, a body of known length within MAX_BODY_BYTES, and of the route's media type. */
export function checkWrite(method: string, pathname: string, headers: Headers): Refusal | null {
  if (SAFE_METHODS.has(method.toUpperCase())) return null;
  if (!isSameOrigin(headers)) {
    return {
      code: "cross_origin",
      message: "a request that changes state must come from this dashboard's own page (a same-origin Origin or Sec-Fetch-Site)",
    };
  }
  const length = headers.get("content-length");
  if (length === null && headers.get("transfer-encoding") !== null) {
    return { code: "length_required", message: "body: must be sent with a Content-Length", field: "body" };
  }
  if (length !== null && (!/^\d{1,12}$/.test(length.trim()) || Number(length) > MAX_BODY_BYTES)) {
    return { code: "too_large", message: `body: must be at most ${MAX_BODY_BYTES / 1024} kB`, field: "body" };
  }
  const want = FORM_ROUTES.has(pathname) ? "application/x-www-form-urlencoded" : "application/json";
  const type = (headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  if (type !== want) return { code: "unsupported_media_type", message: `body: must be sent as Content-Type: ${want}`, field: "body" };
  return null;
}
