import { NextResponse } from "next/server";
import { AUTH_COOKIE, cookieValue, safeNext, tokenMatches } from "@/lib/auth";
import { route, runtimeOr503 } from "@/lib/http";

export const dynamic = "force-dynamic";

/** The sign-in form posts here: a right token sets an HttpOnly, SameSite cookie. */
export const POST = route(async (request: Request) => {
  const runtime = runtimeOr503();
  const token = runtime.config.authToken;
  const form = await request.formData().catch(() => null);
  const candidate = form?.get("token");
  const next = safeNext(typeof form?.get("next") === "string" ? (form!.get("next") as string) : null);
  const base = new URL(request.url);
  if (!token) return NextResponse.redirect(new URL(next, base), 303);
  if (typeof candidate !== "string" || !tokenMatches(candidate, token)) {
    const back = new URL("/signin", base);
    back.searchParams.set("next", next);
    back.searchParams.set("error", "1");
    return NextResponse.redirect(back, 303);
  }
  const response = NextResponse.redirect(new URL(next, base), 303);
  response.cookies.set(AUTH_COOKIE, cookieValue(token), {
    httpOnly: true,
    sameSite: "strict",
    secure: base.protocol === "https:",
    path: "/",
    maxAge: 12 * 3600,
  });
  return response;
});
