// The request gate (proxy.ts) of the real built server watching the run's
// PostgreSQL 18, no token: a DNS-rebinding page's requests, malformed
// paths, oversized bodies and stream caps, each answered with the JSON
// error envelope.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TargetsResponse } from "../lib/schemas/api";
import { errorOf, request } from "./support/http";
import { testPg, waitFor } from "./support/pg";
import { startServer, type RunningServer } from "./support/server";
import { openSse, type SseClient } from "./support/sse";

let server: RunningServer;
let own: string;

async function viewers(): Promise<number> {
  const body = JSON.parse((await request(`${server.url}/api/targets`)).text) as TargetsResponse;
  return body.targets[0].viewers;
}

beforeAll(async () => {
  server = await startServer({
    INFLIGHT_TARGETS: `pg=${testPg().monitorUrl}`,
    INFLIGHT_ALLOWED_HOSTS: "dash.example",
    INFLIGHT_MAX_STREAMS: "12",
    INFLIGHT_MAX_STREAMS_PER_CLIENT: "5",
    INFLIGHT_LOG: "0",
  });
  own = `http://127.0.0.1:${server.port}`;
  await waitFor("target up", async () => JSON.parse((await request(`${server.url}/api/targets`)).text).targets[0].status === "up", 20_000);
});
afterAll(async () => {
  await server?.stop();
});

describe("a rebinding page (Host: evil.example, Origin: http://evil.example)", () => {
  const evil = { Host: "evil.example", Origin: "http://evil.example" };
  it.each([
    ["GET", "/api/targets"],
    ["GET", "/api/targets/pg/window"],
    ["GET", "/metrics"],
    ["GET", "/"],
    ["GET", "/targets/pg"],
    ["GET", "/api/targets/pg/stream"],
    ["POST", "/api/targets/demo/demo"],
  ])("%s %s -> 421, the JSON envelope and nothing else", async (method, path) => {
    const post =
      method === "POST" ? { body: '{"io_workers":2}', headers: { ...evil, "Content-Type": "application/json" } } : { headers: evil };
    const res = await request(server.url + path, { method, ...post });
    expect(res.status).toBe(421);
    expect(res.headers["content-type"]).toMatch(/application\/json/);
    expect(JSON.parse(res.text)).toEqual({ error: { code: "wrong_host", message: expect.stringContaining("INFLIGHT_ALLOWED_HOSTS") } });
    expect(res.headers["content-security-policy"]).toContain("frame-ancestors 'none'");
  });

  it("the same name on the server's own port is refused too; the names it is reached by are served", async () => {
    const status = async (host: string) => (await request(`${server.url}/api/targets`, { headers: { Host: host } })).status;
    expect(await status(`evil.example:${server.port}`)).toBe(421);
    expect(await status(`127.0.0.1:${server.port + 1}`)).toBe(421);
    for (const host of [
      `127.0.0.1:${server.port}`,
      `localhost:${server.port}`,
      `[::1]:${server.port}`,
      "dash.example",
      `dash.example:${server.port}`,
    ]) {
      expect(await status(host), host).toBe(200);
    }
  });
});

describe("paths and bodies", () => {
  it.each(["/api/targets/%E0%A4%A/window", "/api/targets/%ZZ/stream", "/api/targets/%E0%A4%A/export", "/targets/%E0%A4%A"])(
    "%s: malformed percent-encoding -> 400 naming the id",
    async (path) => {
      const res = await request(server.url + path);
      expect(res.status).toBe(400);
      expect(res.headers["content-type"]).toMatch(/application\/json/);
      expect(errorOf(res)).toEqual({ code: "bad_request", message: "id: is not valid percent-encoding", field: "id" });
    },
  );

  // Built when the test runs: the page's own Origin names the server's port.
  const json =
    (body: string | Buffer, headers: () => Record<string, string> = () => ({})) =>
    () => ({ method: "POST", body, headers: { Origin: own, "Content-Type": "application/json", ...headers() } });
  it.each([
    ["over Next's 10 MB body limit", 413, "too_large", json(Buffer.alloc(10 * 1024 * 1024 + 1, 0x20))],
    ["over inflight's 64 kB", 413, "too_large", json(`{"io_workers":2${" ".repeat(100_000)}}`)],
    ["chunked, no length", 411, "length_required", json('{"io_workers":2}', () => ({ "Transfer-Encoding": "chunked" }))],
    ["text/plain from the page itself", 415, "unsupported_media_type", json('{"io_workers":2}', () => ({ "Content-Type": "text/plain" }))],
    [
      "no Origin (a tool must send one)",
      403,
      "cross_origin",
      () => ({ method: "POST", body: '{"io_workers":2}', headers: { "Content-Type": "application/json" } }),
    ],
    ["another port of 127.0.0.1", 403, "cross_origin", json('{"io_workers":2}', () => ({ Origin: `http://127.0.0.1:${server.port + 1}` }))],
    ["malformed JSON, accepted by the gate", 400, "bad_request", json("{")],
    ["JSON from the page to a target that is no demo", 404, "not_found", json('{"io_method":"sync"}')],
  ] as const)("POST /api/targets/pg/demo, %s -> %i %s", async (_name, status, code, init) => {
    const res = await request(`${server.url}/api/targets/pg/demo`, init());
    expect(res.status).toBe(status);
    expect(res.headers["content-type"]).toMatch(/application\/json/);
    expect(errorOf(res)?.code).toBe(code);
  });
});

describe("stream caps", () => {
  const stream = () => `${server.url}/api/targets/pg/stream`;
  const opened: SseClient[] = [];
  afterAll(() => opened.forEach((s) => s.close()));

  it("per client address: past INFLIGHT_MAX_STREAMS_PER_CLIENT a 429 with Retry-After (a spoofed client header changes nothing); another address still gets one", async () => {
    for (let i = 0; i < 5; i++) opened.push(await openSse(stream(), { "x-inflight-client": `someone-else-${i}` }));
    expect(opened.map((s) => s.status)).toEqual([200, 200, 200, 200, 200]);
    const refused = await request(stream(), { headers: { "x-inflight-client": "yet-another" } });
    expect(refused.status).toBe(429);
    expect(refused.headers["retry-after"]).toMatch(/^\d+$/);
    expect(errorOf(refused)).toEqual({ code: "too_many_requests", message: expect.stringContaining("INFLIGHT_MAX_STREAMS_PER_CLIENT") });
    const other = await openSse(stream(), {}, "127.0.0.2");
    opened.push(other);
    expect(other.status).toBe(200);
  });

  it("in all: past INFLIGHT_MAX_STREAMS a 503 with Retry-After; a closed stream frees its place", async () => {
    for (const from of ["127.0.0.3", "127.0.0.3", "127.0.0.3", "127.0.0.4", "127.0.0.4", "127.0.0.4"])
      opened.push(await openSse(stream(), {}, from));
    expect(opened.every((s) => s.status === 200)).toBe(true);
    expect(await viewers()).toBe(12);
    const refused = await request(stream(), { from: "127.0.0.5" });
    expect(refused.status).toBe(503);
    expect(refused.headers["retry-after"]).toMatch(/^\d+$/);
    expect(errorOf(refused)).toEqual({ code: "busy", message: expect.stringContaining("INFLIGHT_MAX_STREAMS") });
    opened.pop()!.close();
    await waitFor("a place freed", async () => (await viewers()) === 11);
    const admitted = await openSse(stream(), {}, "127.0.0.5");
    opened.push(admitted);
    expect(admitted.status).toBe(200);
    await admitted.waitFor((e) => e.event === "tick");
  });
});
