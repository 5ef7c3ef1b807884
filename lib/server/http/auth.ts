import "server-only";
import { createHash, timingSafeEqual } from "node:crypto";
import { NextResponse } from "next/server";
import type { CheckResult, FailureThrottle } from "../runtime/throttle";

// With INFLIGHT_AUTH_TOKEN set, every page, API route and stream needs it:
// `Authorization: Bearer <token>` or the cookie the sign-in form sets. The
// cookie holds a digest of the token, never the token itself.

export const AUTH_COOKIE = "inflight_session";

function digest(text: string): Buffer {
  return createHash("sha256").update(`inflight:${text}`).digest();
}

export function cookieValue(token: string): string {
  return digest(token).toString("base64url");
}

/** Constant time: both sides are compared as equal-length digests. */
export function tokenMatches(candidate: string, token: string): boolean {
  return timingSafeEqual(digest(candidate), digest(token));
}

export function cookieMatches(candidate: string, token: string): boolean {
  const want = Buffer.from(cookieValue(token));
  const got = createHash("sha256").update(candidate).digest();
  return timingSafeEqual(got, createHash("sha256").update(want).digest());
}

export interface Credentials {
  authorization: string | null;
  cookie: string | undefined;
}

export function isAuthorized(headers: Credentials, token: string): boolean {
  const bearer = /^Bearer\s+(.+)$/i.exec(headers.authorization ?? "");
  if (bearer && tokenMatches(bearer[1].trim(), token)) return true;
  return headers.cookie !== undefined && cookieMatches(headers.cookie, token);
}

/**
 * Checks the credentials a request presents, after this client's pause
 * for earlier wrong ones (a request presenting none is not a guess: it
 * waits for nothing). `{ ok: false }` for none or a wrong one.
 */
export async function checkCredentials(
  headers: Credentials,
  token: string,
  throttle: FailureThrottle,
  client: string,
): Promise<CheckResult> {
  if (headers.authorization === null && headers.cookie === undefined) return { ok: false };
  return throttle.check(client, () => isAuthorized(headers, token));
}

/**
 * Only paths of this site: "/targets/x", never "//evil", "/\\evil" or
 * "/\t/evil" (browsers drop tabs and newlines from a URL, which makes that
 * "//evil"). Printable ASCII only: anything else could not be a Location.
 */
export function safeNext(next: string | null): string {
  if (!next || !/^\/[\x21-\x7e]*$/.test(next) || next.startsWith("//") || next.includes("\\")) return "/";
  return next;
}

/** Paths reachable without the token. */
export function isOpenPath(pathname: string): boolean {
  return (
    pathname === "/api/health" ||
    pathname === "/signin" ||
    pathname === "/api/auth/signin" ||
    pathname.startsWith("/_next/static/") ||
    pathname === "/favicon.ico" ||
    pathname === "/icon.svg"
  );
}

/**
 * A 303 to a same-site path, as a relative Location. Built from request.url
 * it would name the host Next thinks it serves ("localhost"), not the one the
 * browser used: the cookie set for 127.0.0.1 would then not come back.
 */
export function seeOther(path: string): NextResponse {
  return new NextResponse(null, { status: 303, headers: { Location: path } });
}
