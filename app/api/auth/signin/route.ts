import { AUTH_COOKIE, cookieValue, safeNext, seeOther, tokenMatches } from "@/lib/server/http/auth";
import { clientOf } from "@/lib/server/http/gate";
import { HttpError, route, runtimeOr503 } from "@/lib/server/http/route";

export const dynamic = "force-dynamic";

/**
 * The sign-in form posts here (proxy.ts has checked it came from this
 * site's own page): a right token sets an HttpOnly, SameSite cookie. Wrong
 * tokens from one address are checked one at a time, with a growing pause.
 */
export const POST = route(async (request: Request) => {
  const runtime = runtimeOr503();
  const token = runtime.config.authToken;
  const form = await request.formData().catch(() => null);
  const candidate = form?.get("token");
  const nextField = form?.get("next");
  const next = safeNext(typeof nextField === "string" ? nextField : null);
  if (!token) return seeOther(next);
  const outcome =
    typeof candidate === "string"
      ? await runtime.tokenChecks.check(clientOf(request.headers), () => tokenMatches(candidate, token))
      : { ok: false };
  if ("busy" in outcome) {
    throw new HttpError("too_many_requests", "too many wrong tokens from this address; wait and try again", undefined, {
      "Retry-After": String(outcome.retryAfterS),
    });
  }
  if (!outcome.ok) return seeOther(`/signin?${new URLSearchParams({ next, error: "1" })}`);
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
