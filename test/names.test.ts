// One name per concept (issue 43), checked on every run: the words that
// once meant two or three things, and the one each now means. A word that
// comes back in a new identifier, file or message fails here with where.
import { readFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "..");
const tracked = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard"], { cwd: ROOT, encoding: "utf8" })
  .split("\n")
  .filter((f) => f && !f.startsWith("node_modules/"));
const code = tracked.filter((f) => /\.(ts|tsx|mjs|mts)$/.test(f) && f !== "test/names.test.ts");
const prose = tracked.filter((f) => f.endsWith(".md"));
const textOf = (f: string) => {
  try {
    return readFileSync(path.join(ROOT, f), "utf8");
  } catch {
    return ""; // deleted in the work tree, still in the index
  }
};

/** "file:line: text" for each line of `files` matching `re`. */
function hits(files: readonly string[], re: RegExp): string[] {
  return files.flatMap((f) =>
    textOf(f)
      .split("\n")
      .flatMap((line, i) => (re.test(line) ? [`${f}:${i + 1}: ${line.trim().slice(0, 120)}`] : [])),
  );
}

/** The words, what each now means, and what must not come back. */
const WORDS: { word: string; means: string; files: () => string[]; banned: RegExp }[] = [
  {
    word: "history",
    means: "what inflight keeps on disk of a server (history.db and its samples file), from GET .../history to lib/server/history",
    files: () => code,
    banned: /\b(Past[A-Z]\w*|past[A-Z]\w*|[a-z]\w*Past(?:[A-Z]\w*)?)\b|\bsampled picture\b/,
  },
  {
    word: "history (files)",
    means: "no file named for 'past'",
    files: () => tracked.filter((f) => /(^|\/)past[-./]/.test(f)),
    banned: /^/,
  },
  {
    word: "history (prose)",
    means: "the docs say 'history' too",
    files: () => prose,
    banned: /\bsampled picture\b/i,
  },
  {
    word: "sampleMs",
    means: "the sampling interval in force (TargetInfo.sampleMs); the one asked for is watchedSampleMs",
    files: () => ["lib/server/config/config.ts", "lib/server/collector/options.ts"],
    banned: /^\s*sampleMs\??:/,
  },
  {
    word: "note",
    means: "a finding or check worth knowing now, in the model and the contract as the page shows it",
    files: () => ["lib/schemas/findings.ts", "lib/schemas/enums.ts", ...code.filter((f) => f.startsWith("lib/model/"))],
    banned: /"warn"/,
  },
  {
    word: "note (view)",
    means: "the view names it 'note' too; 'warn' is only a colour there (a Badge or banner tone)",
    files: () => code.filter((f) => /^(lib\/view|components)\//.test(f)),
    banned: /(severity|status)\??: "warn"|warn: "note"/,
  },
];

describe("one name per concept", () => {
  it.each(WORDS)("$word: $means", ({ files, banned }) => {
    expect(hits(files(), banned)).toEqual([]);
  });

  it("reads the tree (a check that reads nothing cannot fail)", () => {
    expect(code.length).toBeGreaterThan(300);
    for (const old of ["export type PastTick", "const pastFrame = 1", "usePast(id)", "the sampled picture"])
      expect(WORDS[0].banned.test(old), old).toBe(true);
    expect(hits(["lib/schemas/target.ts"], /^\s*sampleMs:/)).toHaveLength(1);
    expect(WORDS[4].banned.test('status: alive === 0 ? "fail" : "warn"')).toBe(true);
    expect(WORDS[5].banned.test('{ act: "act", warn: "note", info: "info" }')).toBe(true);
  });
});
