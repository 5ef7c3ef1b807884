import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig, parseDuration } from "./config";
import { watchedMs } from "../collector/options";

const parse = (env: Record<string, string>) => parseConfig(env, "/proj");

function errorOf(env: Record<string, string>): ConfigError {
  try {
    parse(env);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error("no error");
}

describe("parseConfig", () => {
  it("defaults to the demo target on loopback", () => {
    const c = parse({});
    expect(c).toMatchObject({ demo: true, watchedSampleMs: 100, windowMs: 900_000, host: "127.0.0.1", port: 3000, authToken: null });
    expect(c.watchedSampleMsGiven).toBe(false);
    expect(c.targets).toEqual([{ id: "demo", name: "demo", url: "", demo: true }]);
  });

  it("reads targets from DATABASE_URL and INFLIGHT_TARGETS", () => {
    const c = parse({
      DATABASE_URL: "postgres://u:p@db1.example:5432/app",
      INFLIGHT_TARGETS: "east=postgres://u:p@h2/x, west=postgresql://h3/y",
    });
    expect(c.targets.map((t) => [t.id, t.name])).toEqual([
      ["db1.example", "db1.example"],
      ["east", "east"],
      ["west", "west"],
    ]);
    expect(c.demo).toBe(false);
  });

  it.each([
    [{ DATABASE_URL: "not a url secretpw" }, "DATABASE_URL", /not a valid URL/],
    [{ DATABASE_URL: "mysql://u:pw@h/db" }, "DATABASE_URL", /not a postgres:\/\/ or postgresql:\/\/ URL/],
    [{ INFLIGHT_TARGETS: "a=postgres://h/x,a=postgres://h/y" }, "INFLIGHT_TARGETS", /target 2: has the same name as an earlier target/],
    [{ INFLIGHT_TARGETS: "postgres://h/x" }, "INFLIGHT_TARGETS", /name=url/],
    [{ INFLIGHT_SAMPLE_MS: "5" }, "INFLIGHT_SAMPLE_MS", /between 10 and/],
    [{ INFLIGHT_SAMPLE_MS: "fast" }, "INFLIGHT_SAMPLE_MS", /whole number/],
    [{ INFLIGHT_WINDOW: "forever" }, "INFLIGHT_WINDOW", /duration/],
    [{ INFLIGHT_WINDW: "15m" }, "INFLIGHT_WINDW", /not a setting/],
    [{ INFLIGHT_BUDGET: "lots" }, "INFLIGHT_BUDGET", /milliseconds of server time per second/],
    [{ INFLIGHT_BUDGET: "0.1" }, "INFLIGHT_BUDGET", /between 0.5 and 1000/],
    [{ HOST: "0.0.0.0" }, "HOST", /INFLIGHT_AUTH_TOKEN/],
    [{ PORT: "70000" }, "PORT", /between 1 and 65535/],
    [{ INFLIGHT_AUTH_TOKEN: "short" }, "INFLIGHT_AUTH_TOKEN", /16 characters/],
    // A URL pasted without a name splits at its "=": the "name" holds the password.
    [{ INFLIGHT_TARGETS: "postgres://u:secretpw@h/db?sslmode=require" }, "INFLIGHT_TARGETS", /target 1: its name must be/],
    [{ INFLIGHT_ALLOWED_HOSTS: "dash.example,http://x.example" }, "INFLIGHT_ALLOWED_HOSTS", /"http:\/\/x.example" is not host\[:port\]/],
    [{ INFLIGHT_ALLOWED_HOSTS: "*" }, "INFLIGHT_ALLOWED_HOSTS", /is not host\[:port\]/],
    [{ INFLIGHT_MAX_STREAMS: "0" }, "INFLIGHT_MAX_STREAMS", /between 1 and/],
    [{ INFLIGHT_MAX_STREAMS: "10", INFLIGHT_MAX_STREAMS_PER_CLIENT: "11" }, "INFLIGHT_MAX_STREAMS_PER_CLIENT", /between 1 and 10/],
  ])("%o -> names %s", (env, setting, problem) => {
    const err = errorOf(env as Record<string, string>);
    expect(err.setting).toBe(setting);
    expect(err.message).toMatch(problem);
    expect(err.message).not.toMatch(/secretpw|:pw@|:p@/);
  });

  it.each([
    [undefined, 5],
    ["2.5", 2.5],
    ["10ms", 10],
  ])("INFLIGHT_BUDGET %s -> %s ms/s", (raw, want) => {
    expect(parse(raw === undefined ? {} : { INFLIGHT_BUDGET: raw }).budgetMsPerSecond).toBe(want);
  });

  // A "," in a password splits INFLIGHT_TARGETS mid-URL: its pieces stand
  // where a name and a URL go. No piece may be echoed.
  it.each([
    "east=postgres://u:Xq7k,Zr9m=Wv3k@db1:5432/app",
    "east=postgres://u:Xq7k,Zr9m=Wv3k:Pj2w@db1/app",
    "Xq7k,Zr9m=Wv3k@db1/app",
    "east=postgres://u:Xq7k,Zr9m=Wv3k@db1/app,Zr9m=postgres://h/x",
  ])("INFLIGHT_TARGETS %s: the error echoes no part of the password", (targets) => {
    const err = errorOf({ INFLIGHT_TARGETS: targets });
    expect(err.setting).toBe("INFLIGHT_TARGETS");
    for (const piece of ["Xq7k", "Zr9m", "Wv3k", "Pj2w"]) expect(err.message).not.toContain(piece);
  });

  it("INFLIGHT_ALLOWED_HOSTS and the stream caps", () => {
    const c = parse({ INFLIGHT_ALLOWED_HOSTS: "dash.example, 10.0.0.5:8443" });
    expect(c.servedHosts.map((h) => `${h.name}:${h.port}`)).toEqual([
      "127.0.0.1:3000",
      "localhost:3000",
      "[::1]:3000",
      "dash.example:null",
      "10.0.0.5:8443",
    ]);
    expect(c).toMatchObject({ maxStreams: 200, maxStreamsPerClient: 20 });
    expect(parse({ INFLIGHT_MAX_STREAMS: "8" })).toMatchObject({ maxStreams: 8, maxStreamsPerClient: 8 });
  });

  it("serves beyond loopback only with a token", () => {
    expect(parse({ HOST: "0.0.0.0", INFLIGHT_AUTH_TOKEN: "0123456789abcdef0" }).host).toBe("0.0.0.0");
  });
});

describe("the history settings", () => {
  it("keeps 7 days in .inflight/history.db under 256 MB by default", () => {
    expect(parse({}).history).toEqual({ file: "/proj/.inflight/history.db", retentionMs: 7 * 86_400_000, maxBytes: 256 * 1024 * 1024 });
  });
  it("takes a retention, a file and a cap, or off", () => {
    expect(
      parse({ INFLIGHT_HISTORY: "48h", INFLIGHT_HISTORY_FILE: "/var/lib/inflight/h.db", INFLIGHT_HISTORY_MAX_MB: "10" }).history,
    ).toEqual({ file: "/var/lib/inflight/h.db", retentionMs: 48 * 3_600_000, maxBytes: 10 * 1024 * 1024 });
    expect(parse({ INFLIGHT_HISTORY: "off" }).history).toBeNull();
  });
  it.each([
    [{ INFLIGHT_HISTORY: "a week" }, /how long to keep, such as 7d/],
    [{ INFLIGHT_HISTORY: "10m" }, /between 1h and 366d/],
    [{ INFLIGHT_HISTORY_MAX_MB: "0" }, /between 1 and/],
  ])("names a bad value: %j", (env, message) => {
    const err = errorOf(env);
    expect(err.setting).toBe(Object.keys(env)[0]);
    expect(err.message).toMatch(message);
  });
});

describe("parseDuration", () => {
  it.each([
    ["15m", 900_000],
    ["90s", 90_000],
    ["1h", 3_600_000],
    ["250ms", 250],
    ["7d", 7 * 86_400_000],
    ["15", null],
    ["m", null],
    ["-1m", null],
  ])("%s -> %s", (text, want) => {
    expect(parseDuration(text)).toBe(want);
  });
});

describe("INFLIGHT_SAMPLE_MS given or not: where pg_wait_sampling is in use, polls every 250 ms unless the operator said otherwise", () => {
  it.each([
    [{}, false, 100, 250],
    [{ INFLIGHT_SAMPLE_MS: "" }, false, 100, 250],
    [{ INFLIGHT_SAMPLE_MS: "100" }, true, 100, 100],
    [{ INFLIGHT_SAMPLE_MS: "50" }, true, 50, 50],
  ])("%o", (env, given, without, withExtension) => {
    const c = parse(env);
    expect(c.watchedSampleMsGiven).toBe(given);
    const asked = c.watchedSampleMsGiven ? c.watchedSampleMs : undefined;
    expect([watchedMs(asked, false), watchedMs(asked, true)]).toEqual([without, withExtension]);
  });
});
