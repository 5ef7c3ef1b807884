// The relative links and images of README.md, BENCHMARKS.md and docs/*.md
// point at files that exist, and a `#anchor` into a markdown file matches one
// of its headings (GitHub's slugs). Part of `npm run lint`.
//
//   node scripts/check-links.mjs [file.md ...]
//
// One line per broken link (file:line: the link and why), exit 1; silent and
// exit 0 when every link holds. Links to other sites (http:, mailto:, ...)
// are not fetched. Links inside code (fenced blocks, `inline code`) are not
// links.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const ROOT = path.resolve(import.meta.dirname, "..");

/** The markdown files checked by default, relative to the project root. */
export function defaultFiles(root = ROOT) {
  const docs = existsSync(path.join(root, "docs"))
    ? readdirSync(path.join(root, "docs"))
        .filter((f) => f.endsWith(".md"))
        .sort()
        .map((f) => `docs/${f}`)
    : [];
  return ["README.md", "BENCHMARKS.md", ...docs].filter((f) => existsSync(path.join(root, f)));
}

/**
 * The text with code blanked out (fenced blocks and inline code spans), the
 * same length and the same lines, so that offsets and line numbers hold.
 */
export function withoutCode(text) {
  const blank = (s) => s.replace(/[^\n]/g, " ");
  const lines = text.split("\n");
  let fence = null;
  const out = lines.map((line) => {
    const m = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fence) {
      // Closed by a line of the same mark, at least as long, and nothing else.
      if (m && m[1][0] === fence[0] && m[1].length >= fence.length && /^ {0,3}[`~]+\s*$/.test(line)) fence = null;
      return blank(line);
    }
    if (m) {
      fence = m[1];
      return blank(line);
    }
    return line;
  });
  // Inline code: a run of backticks up to the same run (CommonMark).
  return out.join("\n").replace(/(`+)([\s\S]*?[^`])\1(?!`)/g, (s) => blank(s));
}

/**
 * Every link and image in a markdown text: `[text](target)`,
 * `![alt](target "title")`, `[label]: target`. Returns
 * `{ target, line, image }`, the target as written (angle brackets and a
 * title taken off).
 */
export function parseLinks(text) {
  const clean = withoutCode(text);
  const links = [];
  const lineAt = (i) => clean.slice(0, i).split("\n").length;
  const inline = /(!?)\[(?:[^\]\\]|\\.)*\]\(\s*(<[^>\n]*>|(?:[^()\s]|\([^()\s]*\))*)(?:\s+(?:"[^"]*"|'[^']*'|\([^)]*\)))?\s*\)/g;
  for (const m of clean.matchAll(inline)) {
    const target = m[2].startsWith("<") ? m[2].slice(1, -1) : m[2];
    links.push({ target, line: lineAt(m.index), image: m[1] === "!" });
  }
  const definition = /^ {0,3}\[[^\]\n]+\]:\s*(<[^>\n]*>|\S+)/gm;
  for (const m of clean.matchAll(definition)) {
    const target = m[1].startsWith("<") ? m[1].slice(1, -1) : m[1];
    links.push({ target, line: lineAt(m.index), image: false });
  }
  return links.sort((a, b) => a.line - b.line);
}

/** A heading's anchor as GitHub makes it (before the -1, -2 of repeats). */
export function slug(heading) {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1") // a link's text
    .replace(/<[^>]+>/g, "") // HTML tags
    .replace(/[`*]/g, "") // code and emphasis marks
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");
}

/** Every anchor of a markdown text's headings (ATX `#` headings), repeats numbered as GitHub does. */
export function anchors(text) {
  const seen = new Map();
  const out = new Set();
  for (const line of withoutCode(text).split("\n")) {
    const m = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = slug(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Whether a target is another site or scheme (not a file of this project). */
export function isExternal(target) {
  return /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("//");
}

/**
 * What is wrong with one link of `file` (relative to root), or null when it
 * holds. `read` is given for tests.
 */
export function checkLink(file, target, { root = ROOT, read = (p) => readFileSync(p, "utf8"), exists = existsSync } = {}) {
  if (!target) return "empty link";
  if (isExternal(target)) return null;
  const hash = target.indexOf("#");
  const rawPath = hash >= 0 ? target.slice(0, hash) : target;
  const anchor = hash >= 0 ? target.slice(hash + 1) : null;
  let rel;
  try {
    rel = decodeURIComponent(rawPath.split("?")[0]);
  } catch {
    return "not a valid path";
  }
  const full = rel === "" ? path.join(root, file) : rel.startsWith("/") ? path.join(root, rel) : path.join(root, path.dirname(file), rel);
  if (!exists(full)) return `no such file: ${path.relative(root, full) || "."}`;
  if (anchor === null || anchor === "") return null;
  if (!full.endsWith(".md")) return null;
  let text;
  try {
    text = read(full);
  } catch {
    return null; // a folder: GitHub shows its README, no anchor to check
  }
  const want = decodeURIComponent(anchor).toLowerCase();
  return anchors(text).has(want) ? null : `no heading #${anchor} in ${path.relative(root, full)}`;
}

/** Every broken link of the files, one line each: `file:line: target: why`. */
export function check(files, { root = ROOT } = {}) {
  const problems = [];
  for (const file of files) {
    const text = readFileSync(path.join(root, file), "utf8");
    for (const link of parseLinks(text)) {
      const why = checkLink(file, link.target, { root });
      if (why) problems.push(`${file}:${link.line}: ${link.image ? "image" : "link"} ${link.target}: ${why}`);
    }
  }
  return problems;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const files = args.length ? args.map((f) => path.relative(ROOT, path.resolve(f))) : defaultFiles();
  for (const f of files) {
    if (!existsSync(path.join(ROOT, f)) || !statSync(path.join(ROOT, f)).isFile()) {
      console.error(`check-links: no such file: ${f}`);
      process.exit(1);
    }
  }
  const problems = check(files);
  for (const p of problems) console.error(p);
  process.exit(problems.length ? 1 : 0);
}
