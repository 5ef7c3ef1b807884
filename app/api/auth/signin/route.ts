import { AUTH_COOKIE, cookieValue, safeNext, seeOther, tokenMatches } from "@/lib/server/http/auth";
import { route, runtimeOr503 } from "@/lib/server/http/route";

export const dynamic = "force-dynamic";

/** The sign-in form posts here: a right token sets an HttpOnly, SameSite cookie. */
export const POST = route(async (request: Request) => {
  const runtime = runtimeOr503();
  const token = runtime.config.authToken;
  const form = await request.formData().catch(() => null);
  const candidate = form?.get("token");
  const next = safeNext(typeof form?.get("next") === "string" ? (form!.get("next") as string) : null);
  if (!token) return seeOther(next);
  if (typeof candidate !== "string" || !tokenMatches(candidate, token)) {
    return seeOther(`/signin?${new URLSearchParams({ next, error: "1" })}`);
  }
  const response = seeOther(next);
  response.cookies.set(AUTH_COOKIE, cookieValue(token), {
    httpOnly: true,
    sameSite: "strict",
    // Behind a TLS-terminating proxy the request itself is http.
    secure: new URL(request.url).protocol === "https:" || request.headers.get("x-forwarded-proto") === "https",
    path: "/",
    maxAge: 12 * 3600,
  });
  return response;
});
