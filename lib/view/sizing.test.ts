import { describe, expect, it } from "vitest";
import { customRange, labHint, sizingUrl } from "./sizing";

describe("the sizing view's presenter", () => {
  it("a named range or from and to, in the URL", () => {
    expect(sizingUrl("demo", { kind: "named", range: "24h" })).toBe("/api/targets/demo/sizing?range=24h");
    expect(sizingUrl("a b", { kind: "custom", from: 1.5, to: 9.2 })).toBe("/api/targets/a%20b/sizing?from=1&to=10");
  });

  it("a custom range needs both ends, in order", () => {
    expect(customRange("2026-12-06T10:00", "2026-12-06T11:00")).toMatchObject({ kind: "custom" });
    expect(customRange("2026-12-06T11:00", "2026-12-06T10:00")).toBeNull();
    expect(customRange("", "2026-12-06T10:00")).toBeNull();
  });

  it("the lab proves the levers it runs: the demo's button, npm run lab elsewhere", () => {
    expect(labHint("io_workers", true)).toMatch(/demo's A\/B lab/);
    expect(labHint("effective_io_concurrency", false)).toMatch(/npm run lab/);
    expect(labHint("io_combine_limit", true)).toBeNull();
  });
});
