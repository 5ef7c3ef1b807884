import { NextResponse, type NextRequest } from "next/server";
import { AUTH_COOKIE, isAuthorized, isOpenPath } from "@/lib/server/http/auth";
import { getRuntime } from "@/lib/server/runtime/runtime";

// The gate in front of every route when INFLIGHT_AUTH_TOKEN is set.
export function proxy(request: NextRequest) {
  const runtime = getRuntime();
  if (!runtime) return NextResponse.json({ error: { code: "not_ready", message: "inflight is starting" } }, { status: 503 });
  const token = runtime.config.authToken;
  const { pathname, search } = request.nextUrl;
  if (!token || isOpenPath(pathname)) return NextResponse.next();
  const ok = isAuthorized({ authorization: request.headers.get("authorization"), cookie: request.cookies.get(AUTH_COOKIE)?.value }, token);
  if (ok) return NextResponse.next();
  if (pathname.startsWith("/api/") || pathname === "/metrics") {
    return NextResponse.json(
      { error: { code: "unauthorized", message: "sign in or send Authorization: Bearer <INFLIGHT_AUTH_TOKEN>" } },
      { status: 401, headers: { "WWW-Authenticate": 'Bearer realm="inflight"' } },
    );
  }
  // Same host: Next turns this into a relative Location (the browser stays on its host).
  const url = new URL("/signin", request.url);
  url.searchParams.set("next", `${pathname}${search}`);
  return NextResponse.redirect(url, 303);
}

export const config = {
  matcher: ["/((?!_next/static|_next/image).*)"],
};
