import { describe, expect, it } from "vitest";
import { exportUrl, formatViewParams, parseViewParams, type ViewParams } from "./url";

describe("view params", () => {
  it.each<{ name: string; params: ViewParams; qs: string }>([
    { name: "a live span", params: { view: "1m", range: null, run: null }, qs: "view=1m" },
    { name: "the whole window", params: { view: "window", range: null, run: null }, qs: "view=window" },
    {
      name: "a frozen range and a run",
      params: { view: null, range: { from: 1_700_000_000_000, to: 1_700_000_060_000 }, run: "4242:1700000001234" },
      qs: "from=1700000000000&to=1700000060000&run=4242%3A1700000001234",
    },
    { name: "a span and a run", params: { view: "5m", range: null, run: "7:8" }, qs: "view=5m&run=7%3A8" },
    { name: "nothing", params: { view: null, range: null, run: null }, qs: "" },
  ])("round trip: $name", ({ params, qs }) => {
    expect(formatViewParams(params)).toBe(qs);
    expect(parseViewParams(qs)).toEqual(params);
    expect(parseViewParams(new URLSearchParams(qs))).toEqual(params);
  });

  it("writes the range, not the span, when both are set", () => {
    expect(formatViewParams({ view: "5m", range: { from: 1, to: 2 }, run: null })).toBe("from=1&to=2");
  });

  it.each([
    ["an unknown view", "view=all", { view: null }],
    ["a view in capitals", "view=5M", { view: null }],
    ["from without to", "from=100", { range: null }],
    ["to before from", "from=200&to=100", { range: null }],
    ["an empty range", "from=100&to=100", { range: null }],
    ["a negative time", "from=-5&to=100", { range: null }],
    ["a fraction", "from=1.5&to=100", { range: null }],
    ["an unsafe integer", "from=1&to=9999999999999999", { range: null }],
    ["a run id that is not pid:ms", "run=<script>", { run: null }],
    ["a run id with a sign", "run=-1:5", { run: null }],
  ])("ignores %s (%s)", (_, qs, expected) => expect(parseViewParams(qs)).toMatchObject(expected));

  it("keeps the good parameters beside a bad one", () => {
    expect(parseViewParams("view=1m&from=x&to=20&run=3:4")).toEqual({ view: "1m", range: null, run: "3:4" });
  });

  it("reads Next's searchParams, where a repeated parameter is an array (ignored)", () => {
    expect(parseViewParams({ view: "5m", from: ["1", "2"], to: "3", run: undefined })).toEqual({ view: "5m", range: null, run: null });
    expect(parseViewParams({ from: "1", to: "3", run: "9:9" })).toEqual({ view: null, range: { from: 1, to: 3 }, run: "9:9" });
  });
});

describe("exportUrl", () => {
  it.each([
    ["json", null, "/api/targets/demo/export?format=json"],
    ["csv", { from: 10.4, to: 20.2 }, "/api/targets/demo/export?format=csv&from=10&to=21"],
  ] as const)("%s %o", (format, range, url) => expect(exportUrl("demo", format, range)).toBe(url));
});
