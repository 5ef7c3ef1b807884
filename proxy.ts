import { NextResponse, type NextRequest } from "next/server";
import { checkAccess, isApiPath } from "@/lib/server/http/access";
import { AUTH_COOKIE } from "@/lib/server/http/auth";
import { contentSecurityPolicy, newNonce } from "@/lib/server/http/csp";
import type { Refusal } from "@/lib/server/http/gate";
import { errorResponse } from "@/lib/server/http/route";
import { getRuntime } from "@/lib/server/runtime/runtime";
import type { Config } from "@/lib/server/config/config";

// The gate in front of every route (lib/server/http/access.ts: the Host it
// was sent to, a path that decodes, a state-changing request from this
// dashboard's own page, the token when INFLIGHT_AUTH_TOKEN is set); then the
// page's CSP with a fresh nonce for its scripts.
export async function proxy(request: NextRequest) {
  const runtime = getRuntime();
  if (!runtime) return refuse(null, { code: "not_ready", message: "inflight is starting" });
  const { config } = runtime;
  const { pathname, search } = request.nextUrl;
  const access = await checkAccess(runtime, {
    method: request.method,
    pathname,
    headers: request.headers,
    cookie: request.cookies.get(AUTH_COOKIE)?.value,
  });
  if (access === "sign-in") return toSignIn(config, request.url, `${pathname}${search}`);
  if (access) return refuse(config, access);
  return pass(request, config, pathname);
}

function secured<R extends NextResponse>(response: R, config: Config | null, nonce: string | null = null): R {
  response.headers.set("Content-Security-Policy", contentSecurityPolicy(nonce, config?.dev ?? false));
  return response;
}

function refuse(config: Config | null, { code, message, field, headers }: Refusal): NextResponse {
  return secured(errorResponse(code, message, field, headers), config);
}

/** Same host: Next turns this into a relative Location (the browser stays on the host it used, the cookie's host). */
function toSignIn(config: Config, requestUrl: string, next: string): NextResponse {
  const url = new URL("/signin", requestUrl);
  url.searchParams.set("next", next);
  return secured(NextResponse.redirect(url, 303), config);
}

/** Pages render with a nonce: Next reads it from the request's CSP header and puts it on its scripts. */
function pass(request: NextRequest, config: Config, pathname: string): NextResponse {
  if (isApiPath(pathname)) return secured(NextResponse.next(), config);
  const nonce = newNonce();
  const csp = contentSecurityPolicy(nonce, config.dev);
  const headers = new Headers(request.headers);
  headers.set("Content-Security-Policy", csp);
  headers.set("x-nonce", nonce);
  return secured(NextResponse.next({ request: { headers } }), config, nonce);
}

export const config = {
  matcher: ["/((?!_next/static|_next/image).*)"],
};
