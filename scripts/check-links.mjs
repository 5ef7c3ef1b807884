// `npm run lint`, after ESLint: every relative link in README.md and
// docs/*.md names a file that exists (links to the web and to an anchor of
// the same page are not checked, nor are anchors). One line a broken link.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** The link targets of a Markdown text, with their line: inline ([t](x), ![a](x)) and reference ([r]: x). */
export function linksOf(text) {
  const out = [];
  const inCode = (line) => /^\s*(```|~~~)/.test(line);
  let fenced = false;
  text.split("\n").forEach((line, i) => {
    if (inCode(line)) fenced = !fenced;
    if (fenced || inCode(line)) return;
    const plain = line.replace(/`[^`]*`/g, "");
    for (const m of plain.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) out.push({ target: m[1], line: i + 1 });
    const ref = /^\s*\[[^\]]+\]:\s*<?(\S+?)>?(\s|$)/.exec(plain);
    if (ref) out.push({ target: ref[1], line: i + 1 });
  });
  return out;
}

/** A link to check: relative, with its anchor and query taken off; null for the web, mail and same-page anchors. */
export function localPath(target) {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("#") || target.startsWith("//")) return null;
  const file = decodeURIComponent(target.replace(/[#?].*$/, ""));
  return file === "" ? null : file;
}

/** "file:line: link -> missing" for every relative link of `files` whose target does not exist. */
export function brokenLinks(root, files) {
  const broken = [];
  for (const file of files) {
    for (const { target, line } of linksOf(readFileSync(path.join(root, file), "utf8"))) {
      const rel = localPath(target);
      if (rel === null) continue;
      const at = rel.startsWith("/") ? path.join(root, rel) : path.resolve(root, path.dirname(file), rel);
      if (!existsSync(at)) broken.push(`${file}:${line}: ${target} -> ${path.relative(root, at)} does not exist`);
    }
  }
  return broken;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
  const docs = existsSync(path.join(root, "docs")) ? readdirSync(path.join(root, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`) : [];
  const broken = brokenLinks(root, ["README.md", ...docs]);
  for (const line of broken) console.error(`links: ${line}`);
  process.exit(broken.length ? 1 : 0);
}
