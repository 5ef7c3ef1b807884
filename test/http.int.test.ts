// The real server (`next start`) watching three targets on the run's shared
// PostgreSQL 18: one it can read, one with a wrong password, one whose port
// is closed. Routes, parameters, replay, headers, and no secret anywhere.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TargetsResponse } from "../lib/schemas/api";
import type { TargetInfo } from "../lib/schemas/target";
import type { WindowSnapshot } from "../lib/schemas/window";
import { withCredentials } from "./support/own-pg";
import { testPg, waitFor } from "./support/pg";
import { freePort, startServer, type RunningServer } from "./support/server";
import { openSse, type SseClient } from "./support/sse";

const PG = testPg();
const GOOD_URL = PG.monitorUrl;
const GOOD_PASSWORD = decodeURIComponent(new URL(GOOD_URL).password);
const WRONG_PASSWORD = "Wrong-Pass-4417";
const WRONG_URL = withCredentials(GOOD_URL, new URL(GOOD_URL).username, WRONG_PASSWORD);
const DOWN_PASSWORD = "Down-Pass-5521";
let DOWN_URL = "";

let server: RunningServer;

async function json<T>(path: string, init?: RequestInit): Promise<{ status: number; body: T; headers: Headers }> {
  const res = await fetch(server.url + path, init);
  return { status: res.status, body: (await res.json()) as T, headers: res.headers };
}

async function targets(): Promise<Record<string, TargetInfo>> {
  const { body } = await json<TargetsResponse>("/api/targets");
  return Object.fromEntries(body.targets.map((t) => [t.id, t]));
}

beforeAll(async () => {
  DOWN_URL = `postgres://someone:${DOWN_PASSWORD}@127.0.0.1:${await freePort()}/postgres`;
  server = await startServer({ INFLIGHT_TARGETS: `good=${GOOD_URL},wrongpw=${WRONG_URL},down=${DOWN_URL}` });
  await waitFor(
    "good up, the others down",
    async () => {
      const t = await targets();
      return t.good.status === "up" && t.good.samples > 5 && t.wrongpw.status === "down" && t.down.status === "down";
    },
    20_000,
  );
});
afterAll(async () => {
  await server?.stop();
});

describe("targets that are down", () => {
  it("are listed as down with the last error and since when; the rest of the app works", async () => {
    const t = await targets();
    expect(t.wrongpw.lastError).toMatch(/password authentication failed/);
    expect(t.down.lastError).toMatch(/ECONNREFUSED/);
    for (const id of ["wrongpw", "down"]) {
      expect(t[id].statusSince).toBeGreaterThan(Date.now() - 60_000);
      expect(t[id].statusSince).toBeLessThanOrEqual(Date.now());
      expect(t[id].samples).toBe(0);
    }
    expect(t.good).toMatchObject({ status: "up", lastError: null });
    expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
    const { body } = await json<WindowSnapshot>("/api/targets/good/window");
    expect(body.ticks.length).toBeGreaterThan(0);
    const down = await json<WindowSnapshot>("/api/targets/down/window");
    expect(down.status).toBe(200);
    expect(down.body.target.status).toBe("down");
  });
});

/** A POST as the page sends it: its own Origin (known once the server runs), a JSON body. */
function demoPost(body: string): () => RequestInit {
  return () => ({ method: "POST", body, headers: { "Content-Type": "application/json", Origin: server.url } });
}

describe("parameters", () => {
  const CASES: [string, string, RequestInit | (() => RequestInit) | undefined, number, string | null][] = [
    ["a malformed id", "/api/targets/Bad!Id/window", undefined, 400, "id"],
    ["an unknown target (window)", "/api/targets/nope/window", undefined, 404, "id"],
    ["an unknown target (stream)", "/api/targets/nope/stream", undefined, 404, "id"],
    ["an unknown target (export)", "/api/targets/nope/export", undefined, 404, "id"],
    ["since not a number", "/api/targets/good/window?since=abc", undefined, 400, "since"],
    ["since too long", `/api/targets/good/window?since=${"9".repeat(40)}`, undefined, 400, "since"],
    ["to before from", "/api/targets/good/window?from=2000&to=1000", undefined, 400, "to"],
    ["an unknown parameter", "/api/targets/good/window?bogus=1", undefined, 400, "bogus"],
    ["stream since not a number", "/api/targets/good/stream?since=-1", undefined, 400, "since"],
    ["stream unknown parameter", "/api/targets/good/stream?after=1", undefined, 400, "after"],
    ["Last-Event-ID not a number", "/api/targets/good/stream", { headers: { "Last-Event-ID": "abc" } }, 400, "Last-Event-ID"],
    ["Last-Event-ID huge", "/api/targets/good/stream", { headers: { "Last-Event-ID": "9".repeat(4000) } }, 400, "Last-Event-ID"],
    ["export format", "/api/targets/good/export?format=xml", undefined, 400, "format"],
    ["demo body not JSON", "/api/targets/good/demo", demoPost("{"), 400, "body"],
    ["demo io_workers out of range", "/api/targets/good/demo", demoPost(JSON.stringify({ io_workers: 99 })), 400, "io_workers"],
    ["demo unknown field", "/api/targets/good/demo", demoPost(JSON.stringify({ shared_buffers: "1GB" })), 400, "shared_buffers"],
    ["demo on a target that is not the demo", "/api/targets/good/demo", demoPost(JSON.stringify({ io_method: "sync" })), 404, "id"],
  ];
  it.each(CASES)("%s -> %i naming the field", async (_name, path, init, status, field) => {
    const {
      status: got,
      body,
      headers,
    } = await json<{ error: { code: string; message: string; field?: string } }>(path, typeof init === "function" ? init() : init);
    expect(got).toBe(status);
    expect(headers.get("content-type")).toMatch(/application\/json/);
    expect(body.error.field).toBe(field);
    expect(body.error.message.startsWith(`${field}:`) || status === 404).toBe(true);
    expect(body.error.message).not.toMatch(/\n|at .*\.js/);
  });
});

describe("the stream's Last-Event-ID", () => {
  it("an id from the future (an earlier inflight process) gets a reset event", async () => {
    const sse = await openSse(`${server.url}/api/targets/good/stream`, { "Last-Event-ID": "99999999" });
    try {
      expect(sse.status).toBe(200);
      const reset = await sse.waitFor((e) => e.event === "reset");
      expect(JSON.parse(reset.data).lastSeq).toBeLessThan(99999999);
    } finally {
      sse.close();
    }
  });

  it("a reconnect with Last-Event-ID replays what was missed: no gap, no duplicate", async () => {
    const replayable = (e: { event: string; id: string | null }) => (e.event === "tick" || e.event === "io") && e.id !== null;
    const first = await openSse(`${server.url}/api/targets/good/stream`);
    await first.waitFor((_e, all) => all.filter(replayable).length >= 5);
    first.close();
    const lastId = Number(first.events.filter(replayable).at(-1)!.id);
    // Let the collector move on while no one listens.
    const before = (await targets()).good.samples;
    await waitFor("ticks while away", async () => (await targets()).good.samples >= before + 3, 10_000);

    const second: SseClient = await openSse(`${server.url}/api/targets/good/stream`, { "Last-Event-ID": String(lastId) });
    try {
      await second.waitFor((_e, all) => all.filter(replayable).length >= 10);
      const got = second.events.filter(replayable).map((e) => Number(e.id));
      const { body } = await json<WindowSnapshot>(`/api/targets/good/window?since=${lastId}`);
      const max = got.at(-1)!;
      const want = [...body.ticks, ...body.io]
        .map((x) => x.seq)
        .filter((s) => s <= max)
        .sort((a, b) => a - b);
      expect(got[0]).toBeGreaterThan(lastId);
      expect(got).toEqual(want);
      expect(new Set(got).size).toBe(got.length);
    } finally {
      second.close();
    }
  });
});

describe("security headers", () => {
  it.each(["/", "/targets/good", "/api/targets", "/api/targets/good/window", "/metrics", "/api/targets/nope/window"])(
    "%s: CSP without unsafe-eval, frame-ancestors 'none', nosniff",
    async (path) => {
      const res = await fetch(server.url + path);
      await res.arrayBuffer();
      const csp = res.headers.get("content-security-policy") ?? "";
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain("unsafe-eval");
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    },
  );

  it("the stream too", async () => {
    const sse = await openSse(`${server.url}/api/targets/good/stream`);
    sse.close();
    expect(sse.headers["content-security-policy"]).toContain("frame-ancestors 'none'");
    expect(sse.headers["x-content-type-options"]).toBe("nosniff");
    expect(sse.headers["cache-control"]).toBe("no-cache, no-transform");
  });
});

describe("secrets", () => {
  it("no password or connection string in any page, route, stream, metrics or log line", async () => {
    const texts: [string, string][] = [];
    const get = async (path: string) => {
      const res = await fetch(server.url + path);
      texts.push([path, await res.text()]);
      return texts.at(-1)![1];
    };
    const pages = ["/", "/signin", "/targets/good", "/targets/wrongpw", "/targets/down", "/targets/nope"];
    for (const p of pages) await get(p);
    // Every script the pages load.
    const scripts = new Set(texts.flatMap(([, html]) => [...html.matchAll(/src="(\/_next\/static\/[^"]+\.js)"/g)].map((m) => m[1])));
    expect(scripts.size).toBeGreaterThan(0);
    for (const s of scripts) await get(s);
    for (const p of ["/api/health", "/api/targets", "/metrics", "/api/targets/nope/window"]) await get(p);
    for (const id of ["good", "wrongpw", "down"]) {
      await get(`/api/targets/${id}/window`);
      await get(`/api/targets/${id}/export`);
      await get(`/api/targets/${id}/export?format=csv`);
    }
    const streams = await Promise.all(["good", "wrongpw", "down"].map((id) => openSse(`${server.url}/api/targets/${id}/stream?since=0`)));
    await new Promise((r) => setTimeout(r, 1500));
    for (const s of streams) {
      s.close();
      texts.push(["stream", s.text()]);
    }
    expect(streams[1].text()).toContain("password authentication failed");
    texts.push(["server stdout+stderr", server.output()]);

    const secrets = [GOOD_PASSWORD, WRONG_PASSWORD, DOWN_PASSWORD, GOOD_URL, WRONG_URL, DOWN_URL, encodeURIComponent(GOOD_PASSWORD)];
    for (const [where, text] of texts) {
      for (const secret of secrets) expect(text.includes(secret), `${secret.slice(0, 12)}… in ${where}`).toBe(false);
    }
  });
});
