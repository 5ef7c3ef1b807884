import { describe, expect, it } from "vitest";
import { parseConfig } from "../runtime/config";
import { earlyRefusal } from "./early";
import { StreamLimits } from "./streams";

const config = parseConfig({ PORT: "3000" }, "/proj");
const stream = (over: { method?: string; url?: string; host?: string } = {}) => ({
  method: over.method ?? "GET",
  url: over.url ?? "/api/targets/demo/stream?since=4",
  headers: { host: over.host ?? "127.0.0.1:3000" },
});

describe("earlyRefusal", () => {
  it("answers only a stream the caps would refuse, for a Host the server serves", () => {
    const limits = new StreamLimits(2, 1);
    expect(earlyRefusal(config, limits, stream(), "a")).toBeNull();
    const held = limits.admit("a");
    expect("release" in held).toBe(true);

    const perClient = earlyRefusal(config, limits, stream(), "a");
    expect(perClient).toMatchObject({ status: 429, headers: { "Content-Type": "application/json", "Retry-After": expect.stringMatching(/^\d+$/) } });
    expect(JSON.parse(perClient!.body)).toEqual({ error: { code: "too_many_requests", message: expect.stringContaining("INFLIGHT_MAX_STREAMS_PER_CLIENT") } });
    expect(perClient!.headers["Content-Security-Policy"]).toContain("frame-ancestors 'none'");

    limits.admit("b");
    const all = earlyRefusal(config, limits, stream(), "c");
    expect(all?.status).toBe(503);
    expect(JSON.parse(all!.body).error.code).toBe("busy");
    expect(limits.refused).toEqual({ server: 1, client: 1 });

    // Not a stream, not a GET, another Host: Next's gate answers those.
    expect(earlyRefusal(config, limits, stream({ url: "/api/targets/demo/window" }), "c")).toBeNull();
    expect(earlyRefusal(config, limits, stream({ url: "/api/targets/demo/streamx" }), "c")).toBeNull();
    expect(earlyRefusal(config, limits, stream({ method: "POST" }), "c")).toBeNull();
    expect(earlyRefusal(config, limits, stream({ host: "evil.example" }), "c")).toBeNull();
  });
});
