// The pure parts of scripts/check-links.mjs: what counts as a link, GitHub's
// heading anchors, and what makes a link broken. The files are fakes.
import path from "node:path";
import { describe, expect, it } from "vitest";
// @ts-expect-error plain ESM without types
import { anchors, checkLink, isExternal, parseLinks, slug } from "./check-links.mjs";

type Link = { target: string; line: number; image: boolean };

describe("parseLinks", () => {
  it("finds links, images, titles, angle brackets and definitions, with their lines", () => {
    const text = [
      "# Title",
      "See [the page](docs/page.md) and ![shot](docs/dashboard.png).",
      '[with a title](docs/a.md#part "A title") and [angled](<docs/b c.md>)',
      "",
      "[ref]: docs/ref.md",
    ].join("\n");
    expect(parseLinks(text)).toEqual([
      { target: "docs/page.md", line: 2, image: false },
      { target: "docs/dashboard.png", line: 2, image: true },
      { target: "docs/a.md#part", line: 3, image: false },
      { target: "docs/b c.md", line: 3, image: false },
      { target: "docs/ref.md", line: 5, image: false },
    ]);
  });

  it("does not take code for links: fenced blocks and inline spans", () => {
    const text = ["```sh", "echo '[no](nope.md)'", "```", "`[no](nope.md)` but [yes](yes.md)", "~~~", "[no](x.md)", "~~~"].join("\n");
    expect(parseLinks(text).map((l: Link) => [l.target, l.line])).toEqual([["yes.md", 4]]);
  });
});

describe("slug and anchors", () => {
  it("makes GitHub's anchors", () => {
    expect(slug("The A/B lab: io_method on one query, cold")).toBe("the-ab-lab-io_method-on-one-query-cold");
    expect(slug("`npm run lab` against the liburing PostgreSQL 18.6: sync, worker, io_uring")).toBe(
      "npm-run-lab-against-the-liburing-postgresql-186-sync-worker-io_uring",
    );
    expect(slug("Settings & checks")).toBe("settings--checks");
    expect(slug("The budget: what watching costs")).toBe("the-budget-what-watching-costs");
  });

  it("numbers repeated headings and skips headings in code", () => {
    const text = ["# Runs", "## Runs", "```", "# not a heading", "```", "### Runs ##"].join("\n");
    expect([...anchors(text)]).toEqual(["runs", "runs-1", "runs-2"]);
  });
});

describe("checkLink", () => {
  const root = "/repo";
  const files: Record<string, string> = {
    "/repo/README.md": "# inflight\n## Start it\n",
    "/repo/docs/page.md": "# What the page shows\n## The fleet page\n",
    "/repo/docs/dashboard.png": "",
    "/repo/deploy": "",
  };
  const opts = { root, exists: (p: string) => p in files, read: (p: string) => files[path.normalize(p)] };

  it("passes files that exist and anchors that match", () => {
    expect(checkLink("README.md", "docs/page.md", opts)).toBeNull();
    expect(checkLink("README.md", "docs/page.md#the-fleet-page", opts)).toBeNull();
    expect(checkLink("docs/page.md", "../README.md#start-it", opts)).toBeNull();
    expect(checkLink("docs/page.md", "#the-fleet-page", opts)).toBeNull();
    expect(checkLink("README.md", "docs/dashboard.png", opts)).toBeNull();
    expect(checkLink("README.md", "https://example.com/x.md", opts)).toBeNull();
  });

  it("names what is broken", () => {
    expect(checkLink("README.md", "docs/install.md", opts)).toBe("no such file: docs/install.md");
    expect(checkLink("docs/page.md", "page.md#nowhere", opts)).toBe("no heading #nowhere in docs/page.md");
    expect(checkLink("docs/page.md", "README.md", opts)).toBe("no such file: docs/README.md");
    expect(checkLink("README.md", "", opts)).toBe("empty link");
  });

  it("tells other sites from files", () => {
    expect(isExternal("http://127.0.0.1:3000")).toBe(true);
    expect(isExternal("mailto:a@b")).toBe(true);
    expect(isExternal("docs/page.md")).toBe(false);
    expect(isExternal("#anchor")).toBe(false);
  });
});
