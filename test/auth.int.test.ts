// INFLIGHT_AUTH_TOKEN set: proxy.ts gates every page, API route, stream and
// /metrics under `next start`; /api/health stays open; the sign-in form sets
// an HttpOnly SameSite cookie; Authorization: Bearer works too.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TargetsResponse } from "../lib/schemas/api";
import { testPg, waitFor } from "./support/pg";
import { startServer, type RunningServer } from "./support/server";
import { openSse } from "./support/sse";

const TOKEN = randomBytes(24).toString("hex");
let server: RunningServer;

const GATED = ["/", "/targets/pg", "/api/targets", "/api/targets/pg/window", "/api/targets/pg/export", "/api/targets/pg/stream", "/metrics"];

function get(path: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(server.url + path, { headers, redirect: "manual" });
}

/** Reads a stream's first chunk then drops it (gated routes include the SSE one). */
async function status(path: string, headers: Record<string, string> = {}): Promise<{ status: number; location: string | null; type: string | null }> {
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
    expect((await status(path, { Authorization: "Bearer not-the-token-at-all" })).status).toBe(path.startsWith("/api/") || path === "/metrics" ? 401 : 303);
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
      fetch(`${server.url}/api/auth/signin`, { method: "POST", body: new URLSearchParams({ token, next }), redirect: "manual" });
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

  it("after sign-in, only same-site paths are followed", async () => {
    const res = await fetch(`${server.url}/api/auth/signin`, { method: "POST", body: new URLSearchParams({ token: TOKEN, next: "//evil.example/x" }), redirect: "manual" });
    expect(res.headers.get("location")).toBe("/");
  });

  it("refusals carry the security headers too", async () => {
    const res = await get("/api/targets");
    expect(res.status).toBe(401);
    expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  });
});
