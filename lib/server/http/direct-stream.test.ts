import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { target, tick } from "@/test/support/fixtures";
import type { Tick } from "../../schemas/tick";
import type { Collector } from "../collector/collector";
import { Feed } from "../payloads/feed";
import { parseConfig } from "../config/config";
import { AUTH_COOKIE, cookieValue } from "./auth";
import { cookieNamed, serveStream, type StreamRuntime } from "./direct-stream";
import { StreamLimits } from "../runtime/streams";
import { FailureThrottle } from "../runtime/throttle";

// The direct path through a real HTTP server on loopback: what a stream, and
// each refusal, look like on the wire. The integration tests (test/http,
// auth, crowd, load) take the same path through the built server.

const TOKEN = "s3cret-token-for-the-test";

/** A target whose window holds `n` ticks (seq 1..n), behind a runtime with these caps. */
function setUp(n: number, env: Record<string, string> = {}, caps = { all: 4, perClient: 2 }) {
  const feed = new Feed();
  const ticks: Tick[] = Array.from({ length: n }, (_, i) => tick(i + 1, 1000 + i * 100));
  const source = {
    feed,
    window: { lastSeq: n, ticksSince: (seq: number) => ticks.filter((t) => t.seq > seq), ioSince: () => [] },
  };
  feed.publish("target", target());
  const runtime: StreamRuntime = {
    config: parseConfig({ PORT: "3000", ...env }, "/proj"),
    tokenChecks: new FailureThrottle(),
    collectors: new Map([["demo", source as unknown as Collector]]),
    streams: new StreamLimits(caps.all, caps.perClient),
  };
  const served: string[] = [];
  const server = http.createServer(async (req, res) => {
    if (await serveStream(runtime, req, res, String(req.headers["x-test-client"] ?? "a"))) return;
    served.push(`${req.method} ${req.url}`);
    res.writeHead(204).end();
  });
  return { feed, runtime, server, served };
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** what arrived so far */
  text(): string;
  close(): void;
}

let open: http.Server[] = [];
afterEach(async () => {
  await Promise.all(open.map((s) => new Promise((r) => (s.closeAllConnections(), s.close(r)))));
  open = [];
});

async function listen(server: http.Server): Promise<number> {
  open.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return (server.address() as AddressInfo).port;
}

function ask(port: number, path: string, headers: Record<string, string> = {}, method = "GET"): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ port, host: "127.0.0.1", path, method, headers: { host: "127.0.0.1:3000", ...headers } }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("error", () => undefined);
      resolve({ status: res.statusCode ?? 0, headers: res.headers, text: () => body, close: () => req.destroy() });
    });
    req.on("error", reject);
    req.end();
  });
}

async function until(what: string, check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!check()) throw new Error(`never: ${what}`);
}

const error = async (a: Answer) => {
  await until("the body", () => a.text().endsWith("}"));
  return JSON.parse(a.text()) as { error: { code: string; message: string; field?: string } };
};

describe("serveStream", () => {
  it("streams the state, what the viewer missed and every new event, with the site's headers; closing frees its place", async () => {
    const { feed, runtime, server } = setUp(5);
    const port = await listen(server);
    const a = await ask(port, "/api/targets/demo/stream?since=3");
    expect(a.status).toBe(200);
    expect(a.headers).toMatchObject({
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      "x-content-type-options": "nosniff",
      "x-frame-options": "DENY",
      "referrer-policy": "same-origin",
    });
    expect(a.headers["content-security-policy"]).toContain("frame-ancestors 'none'");
    await until("ticks 4 and 5", () => a.text().includes("id: 5\n"));
    // What it missed (ticks 4 and 5), then the state.
    expect(a.text()).toMatch(/^retry: 1000\n\nevent: tick\nid: 4\n[^]*event: tick\nid: 5\n[^]*event: target\n/);
    expect(a.text()).not.toContain("id: 3\n");
    expect(a.text()).toContain("id: 4\n");

    feed.publish("tick", tick(6, 1600));
    await until("tick 6", () => a.text().includes("id: 6\n"));
    expect(feed.viewers).toBe(1);
    expect(runtime.streams.count).toBe(1);
    a.close();
    await until("its place freed", () => runtime.streams.count === 0 && feed.viewers === 0);
  });

  it("refuses with the JSON envelope, naming the field or the cap, and the site's headers", async () => {
    const { server } = setUp(0);
    const port = await listen(server);
    const cases: [string, Record<string, string>, number, string, string | undefined][] = [
      ["/api/targets/demo/stream?since=abc", {}, 400, "bad_request", "since"],
      ["/api/targets/demo/stream?foo=1", {}, 400, "bad_request", "foo"],
      ["/api/targets/demo/stream", { "last-event-id": "x" }, 400, "bad_request", "Last-Event-ID"],
      ["/api/targets/nope/stream", {}, 404, "not_found", "id"],
      ["/api/targets/%E0%A4%A/stream", {}, 400, "bad_request", "id"],
      ["/api/targets/demo/stream", { host: "evil.example" }, 421, "wrong_host", undefined],
    ];
    for (const [path, headers, status, code, field] of cases) {
      const a = await ask(port, path, headers);
      expect(a.status, path).toBe(status);
      expect(a.headers["content-type"]).toBe("application/json");
      expect(a.headers["x-content-type-options"]).toBe("nosniff");
      expect(a.headers["content-security-policy"]).toContain("default-src 'self'");
      const body = await error(a);
      expect(body.error.code, path).toBe(code);
      expect(body.error.field, path).toBe(field);
    }
  });

  it("holds the caps: per client address (429), then in all (503), each with Retry-After", async () => {
    const { runtime, server } = setUp(0, {}, { all: 3, perClient: 2 });
    const port = await listen(server);
    const held = [
      await ask(port, "/api/targets/demo/stream", { "x-test-client": "a" }),
      await ask(port, "/api/targets/demo/stream", { "x-test-client": "a" }),
    ];
    const perClient = await ask(port, "/api/targets/demo/stream", { "x-test-client": "a" });
    expect(perClient.status).toBe(429);
    expect(perClient.headers["retry-after"]).toMatch(/^\d+$/);
    expect((await error(perClient)).error.code).toBe("too_many_requests");
    held.push(await ask(port, "/api/targets/demo/stream", { "x-test-client": "b" }));
    const all = await ask(port, "/api/targets/demo/stream", { "x-test-client": "c" });
    expect(all.status).toBe(503);
    expect((await error(all)).error.code).toBe("busy");
    expect(runtime.streams.refused).toEqual({ server: 1, client: 1 });
    for (const h of held) h.close();
    await until("every place freed", () => runtime.streams.count === 0);
  });

  it("with INFLIGHT_AUTH_TOKEN: 401 without it, a stream with the bearer token or the sign-in cookie", async () => {
    const { server } = setUp(0, { INFLIGHT_AUTH_TOKEN: TOKEN });
    const port = await listen(server);
    const none = await ask(port, "/api/targets/demo/stream");
    expect(none.status).toBe(401);
    expect(none.headers["www-authenticate"]).toBe('Bearer realm="inflight"');
    expect((await error(none)).error.code).toBe("unauthorized");
    const wrong = await ask(port, "/api/targets/demo/stream", { authorization: "Bearer nope" });
    expect(wrong.status).toBe(401);
    const bearer = await ask(port, "/api/targets/demo/stream", { authorization: `Bearer ${TOKEN}` });
    expect(bearer.status).toBe(200);
    const cookie = await ask(port, "/api/targets/demo/stream", { cookie: `theme=dark; ${AUTH_COOKIE}=${cookieValue(TOKEN)}` });
    expect(cookie.status).toBe(200);
    bearer.close();
    cookie.close();
  });

  it("leaves every other request to Next: another path, another method, a trailing slash", async () => {
    const { server, served } = setUp(0);
    const port = await listen(server);
    for (const [path, method] of [
      ["/api/targets/demo/window", "GET"],
      ["/api/targets/demo/stream", "POST"],
      ["/api/targets/demo/stream/", "GET"],
      ["/api/targets/demo/streamx", "GET"],
    ]) {
      expect((await ask(port, path, {}, method)).status).toBe(204);
    }
    expect(served).toEqual([
      "GET /api/targets/demo/window",
      "POST /api/targets/demo/stream",
      "GET /api/targets/demo/stream/",
      "GET /api/targets/demo/streamx",
    ]);
  });
});

describe("cookieNamed", () => {
  it("finds one cookie among others, decoded where it can be", () => {
    expect(cookieNamed("a=1; inflight_session=x%2By; b=2", "inflight_session")).toBe("x+y");
    expect(cookieNamed("inflight_session=%E0%A4%A", "inflight_session")).toBe("%E0%A4%A");
    expect(cookieNamed("xinflight_session=1", "inflight_session")).toBeUndefined();
    expect(cookieNamed(null, "inflight_session")).toBeUndefined();
  });
});
