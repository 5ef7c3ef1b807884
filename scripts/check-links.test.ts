import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
// @ts-expect-error plain ESM without types
import { brokenLinks, linksOf, localPath } from "./check-links.mjs";

describe("check-links", () => {
  it("finds inline, image and reference links, not those in code", () => {
    const text = ["See [install](docs/install.md#flags) and ![shot](docs/a.png \"A\").", "`[not](a-link.md)`", "```", "[nor](this.md)", "```", "[ref]: ./CHARTS.md"].join("\n");
    expect(linksOf(text)).toEqual([
      { target: "docs/install.md#flags", line: 1 },
      { target: "docs/a.png", line: 1 },
      { target: "./CHARTS.md", line: 6 },
    ]);
  });

  it.each([
    ["https://example.com/x.md", null],
    ["mailto:a@b", null],
    ["#usage", null],
    ["docs/install.md#flags", "docs/install.md"],
    ["a%20b.md?x=1", "a b.md"],
  ])("localPath(%s) is %s", (target, want) => expect(localPath(target)).toBe(want));

  it("reports a missing file with its line, relative to the linking file", () => {
    const root = mkdtempSync(path.join(os.tmpdir(), "inflight-links-"));
    mkdirSync(path.join(root, "docs"));
    writeFileSync(path.join(root, "docs", "a.md"), "[b](b.md)\n[up](../README.md)\n[gone](gone.md)\n");
    writeFileSync(path.join(root, "docs", "b.md"), "");
    writeFileSync(path.join(root, "README.md"), "[a](docs/a.md)\n");
    try {
      expect(brokenLinks(root, ["README.md", "docs/a.md"])).toEqual(["docs/a.md:3: gone.md -> docs/gone.md does not exist"]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
