// INFLIGHT_AUTH_TOKEN set: proxy.ts gates every page, API route, stream and
// /metrics under `next start`; /api/health stays open; the sign-in form sets
// an HttpOnly SameSite cookie; Authorization: Bearer works too.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TargetsResponse } from "../lib/schemas/api";
import { errorOf, request } from "./support/http";
import { testPg, waitFor } from "./support/pg";
import { startServer, type RunningServer } from "./support/server";
import { openSse } from "./support/sse";

const TOKEN = randomBytes(24).toString("hex");
let server: RunningServer;

const GATED = [
  "/",
  "/targets/pg",
  "/api/targets",
  "/api/targets/pg/window",
  "/api/targets/pg/export",
  "/api/targets/pg/stream",
  "/metrics",
];

function get(path: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(server.url + path, { headers, redirect: "manual" });
}

/** Reads a stream's first chunk then drops it (gated routes include the SSE one). */
async function status(
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; location: string | null; type: string | null }> {
  const controller = new AbortController();
  const res = await fetch(server.url + path, { headers, redirect: "manual", signal: controller.signal });
  const out = { status: res.status, location: res.headers.get("location"), type: res.headers.get("content-type") };
  controller.abort();
  return out;
}

async function viewers(headers: Record<string, string>): Promise<number> {
  const body = (await (await get("/api/targets", headers)).json()) as TargetsResponse;
  return body.targets[0].viewers;
}

beforeAll(async () => {
  server = await startServer({ INFLIGHT_TARGETS: `pg=${testPg().monitorUrl}`, INFLIGHT_AUTH_TOKEN: TOKEN });
});
afterAll(async () => {
  await server?.stop();
});

describe("with INFLIGHT_AUTH_TOKEN", () => {
  const bearer = { Authorization: `Bearer ${TOKEN}` };

  it("/api/health, /signin and static assets stay open", async () => {
    expect((await get("/api/health")).status).toBe(200);
    const signin = await get("/signin");
    expect(signin.status).toBe(200);
    const html = await signin.text();
    expect(html).toContain('action="/api/auth/signin"');
    const asset = /src="(\/_next\/static\/[^"]+\.js)"/.exec(html)![1];
    expect((await get(asset)).status).toBe(200);
  });

  it.each(GATED)("%s needs the token", async (path) => {
    const res = await status(path);
    if (path.startsWith("/api/") || path === "/metrics") {
      expect(res.status).toBe(401);
      expect(res.type).toMatch(/application\/json/);
    } else {
      expect(res.status).toBe(303);
      // Relative: the browser stays on the host it used (the cookie's host).
      expect(res.location).toBe(`/signin?${new URLSearchParams({ next: path })}`);
    }
    expect((await status(path, { Authorization: "Bearer not-the-token-at-all" })).status).toBe(
      path.startsWith("/api/") || path === "/metrics" ? 401 : 303,
    );
    expect((await status(path, bearer)).status).toBe(200);
  });

  it("a refused stream adds no viewer", async () => {
    await waitFor("no viewers", async () => (await viewers(bearer)) === 0);
    const sse = await openSse(`${server.url}/api/targets/pg/stream`);
    expect(sse.status).toBe(401);
    sse.close();
    expect(await viewers(bearer)).toBe(0);
  });

  it("the sign-in form: a wrong token goes back to the form, the right one sets an HttpOnly SameSite cookie that opens everything", async () => {
    const post = (token: string, next: string) =>
      fetch(`${server.url}/api/auth/signin`, {
        method: "POST",
        body: new URLSearchParams({ token, next }),
        headers: { Origin: server.url },
        redirect: "manual",
      });
    const wrong = await post("wrong-token-0123456789", "/targets/pg");
    expect(wrong.status).toBe(303);
    expect(wrong.headers.get("location")).toBe(`/signin?${new URLSearchParams({ next: "/targets/pg", error: "1" })}`);
    expect(wrong.headers.get("set-cookie")).toBeNull();

    const right = await post(TOKEN, "/targets/pg");
    expect(right.status).toBe(303);
    expect(right.headers.get("location")).toBe("/targets/pg");
    const setCookie = right.headers.get("set-cookie")!;
    expect(setCookie).toMatch(/^inflight_session=[^;]+;/);
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=strict/i);
    expect(setCookie).not.toContain(TOKEN);
    const cookie = { Cookie: setCookie.split(";")[0] };
    for (const path of GATED) expect((await status(path, cookie)).status, path).toBe(200);

    // The stream really streams with the cookie.
    const sse = await openSse(`${server.url}/api/targets/pg/stream`, cookie);
    try {
      await sse.waitFor((e) => e.event === "tick");
    } finally {
      sse.close();
    }
    // A forged cookie does not.
    expect((await status("/api/targets", { Cookie: "inflight_session=forged" })).status).toBe(401);
  });

  it.each(["//evil.example/x", "/\t/evil.example", "/\\evil.example", "/\n/x", "/\u20ac"])(
    "after sign-in, next=%j is not followed (and is no 500)",
    async (next) => {
      const res = await fetch(`${server.url}/api/auth/signin`, {
        method: "POST",
        body: new URLSearchParams({ token: TOKEN, next }),
        headers: { Origin: server.url },
        redirect: "manual",
      });
      expect(res.status).toBe(303);
      expect(res.headers.get("location")).toBe("/");
      const form = await (await get(`/signin?${new URLSearchParams({ next })}`)).text();
      expect(form).toContain('name="next" value="/"');
    },
  );

  it("the sign-in form is refused from another site, even with the right token", async () => {
    const res = await fetch(`${server.url}/api/auth/signin`, {
      method: "POST",
      body: new URLSearchParams({ token: TOKEN, next: "/" }),
      headers: { Origin: "http://evil.example" },
      redirect: "manual",
    });
    expect(res.status).toBe(403);
    expect(res.headers.get("set-cookie")).toBeNull();
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("cross_origin");
  });

  it("refusals carry the security headers too", async () => {
    const res = await get("/api/targets");
    expect(res.status).toBe(401);
    expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  });
});

describe("wrong tokens", () => {
  const wrong = { Authorization: "Bearer wrong-token-0123456789abcdef" };
  const targets = () => `${server.url}/api/targets`;

  it("300 wrong tokens from one address are not all checked in 1.5 s, one after another or all at once", async () => {
    let answered = 0;
    const started = Date.now();
    while (answered < 300 && Date.now() - started < 1500) {
      expect((await request(targets(), { headers: wrong, from: "127.0.0.9" })).status).toBe(401);
      answered++;
    }
    expect(answered).toBeLessThan(10);

    // All at once: a few wait their turn, the rest are refused unchecked.
    const sent = Date.now();
    const burst = await Promise.all(
      Array.from({ length: 300 }, () =>
        request(targets(), { headers: wrong, from: "127.0.0.10" }).then((r) => ({ ...r, at: Date.now() - sent })),
      ),
    );
    const checked = burst.filter((r) => r.status === 401);
    const refused = burst.filter((r) => r.status === 429);
    expect(checked.filter((r) => r.at <= 1500).length).toBeLessThan(10);
    expect(checked.length).toBeLessThan(30);
    expect(refused).toHaveLength(300 - checked.length);
    expect(errorOf(refused[0])?.code).toBe("too_many_requests");
    expect(refused[0].headers["retry-after"]).toMatch(/^\d+$/);
  });

  it("a right token after a wrong one still works; other addresses are not held up", async () => {
    const from = "127.0.0.11";
    expect((await request(targets(), { headers: wrong, from })).status).toBe(401);
    expect((await request(targets(), { headers: { Authorization: `Bearer ${TOKEN}` }, from })).status).toBe(200);
    const started = Date.now();
    expect((await request(targets(), { headers: { Authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
    expect(Date.now() - started).toBeLessThan(500);
  });
});
