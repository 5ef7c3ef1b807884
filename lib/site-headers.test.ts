import { describe, expect, it } from "vitest";
import nextConfig from "../next.config";
import { SITE_HEADERS } from "./site-headers";

describe("SITE_HEADERS", () => {
  it("are what next.config.ts sets on every path Next answers", async () => {
    const rules = await nextConfig.headers!();
    const all = rules.find((r) => r.source === "/:path*");
    expect(Object.fromEntries(all!.headers.map((h) => [h.key, h.value]))).toEqual(SITE_HEADERS);
  });
});
