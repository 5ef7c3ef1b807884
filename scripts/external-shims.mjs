// The build's external packages (next.config.ts serverExternalPackages) as
// shims. Turbopack names some with a hash ("pg-587764f78a6c7a9c") and links
// each from .next/node_modules to the project's node_modules. A link is not
// packed, and where npm installs the package its dependencies may sit a folder
// or two higher (hoisted): so each link becomes a small package that
// re-exports the real one, found by Node's own lookup wherever it is. Run
// after every build (build-if-needed.mjs) and before a pack (prepack.mjs), so
// a checkout serves the same build a package ships. The same steps stamp the
// build with the next it was made with: served by another next, a build
// answers every page with 500 "Invalid URL", so start.mjs refuses instead.
import { existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, readlinkSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";

/** The links in .next/node_modules (a scope folder holds its own): [link path, name it stands for]. */
function externalLinks(root, dir) {
  if (!existsSync(dir)) return [];
  const out = [];
  for (const entry of readdirSync(dir)) {
    const at = path.join(dir, entry);
    const stat = lstatSync(at);
    if (stat.isSymbolicLink()) {
      const name = path.relative(path.join(root, "node_modules"), path.resolve(path.dirname(at), readlinkSync(at)));
      if (name.startsWith("..") || path.isAbsolute(name)) throw new Error(`${at} links outside node_modules (${name})`);
      out.push([at, name.split(path.sep).join("/")]);
    } else if (stat.isDirectory() && entry.startsWith("@")) out.push(...externalLinks(root, at));
  }
  return out;
}

/** Replaces a link with a package that re-exports `name` for import() and require() alike. */
async function writeShim(root, link, name) {
  const real = await import(pathToFileURL(createRequire(path.join(root, "package.json")).resolve(name)).href);
  const lines = [`export * from ${JSON.stringify(name)};`];
  if ("default" in real) lines.push(`export { default } from ${JSON.stringify(name)};`);
  const made = `// Made by scripts/external-shims.mjs: the build's name for ${name}.`;
  // Written beside the link, then swapped for it: a server running meanwhile finds one or the other.
  const tmp = `${link}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp);
  writeFileSync(
    path.join(tmp, "package.json"),
    `${JSON.stringify({ name: path.relative(path.join(root, ".next", "node_modules"), link), private: true, exports: { import: "./index.mjs", require: "./index.cjs" } }, null, 2)}\n`,
  );
  writeFileSync(path.join(tmp, "index.mjs"), `${made}\n${lines.join("\n")}\n`);
  writeFileSync(path.join(tmp, "index.cjs"), `${made}\nmodule.exports = require(${JSON.stringify(name)});\n`);
  rmSync(link, { force: true });
  renameSync(tmp, link);
}

/** Replaces every link in .next/node_modules by a shim; the names it shimmed. */
export async function shimExternals(root, { label = "[inflight]", log = console.log } = {}) {
  const links = externalLinks(root, path.join(root, ".next", "node_modules"));
  for (const [link, name] of links) await writeShim(root, link, name);
  if (links.length) log(`${label} external packages as shims in .next/node_modules: ${links.map(([, name]) => name).join(", ")}`);
  return links.map(([, name]) => name);
}

const STAMP = [".next", "inflight-build.json"];

/** Records in .next the version of the next that made it. */
export function stampBuild(root) {
  const { version } = JSON.parse(readFileSync(path.join(root, "node_modules", "next", "package.json"), "utf8"));
  writeFileSync(path.join(root, ...STAMP), `${JSON.stringify({ next: version })}\n`);
}

/** Why `nextVersion` cannot serve the build in .next, or null (also when the build has no stamp: a bare `next build`). */
export function stampProblem(root, nextVersion) {
  const file = path.join(root, ...STAMP);
  if (!existsSync(file)) return null;
  const built = JSON.parse(readFileSync(file, "utf8")).next;
  return built === nextVersion
    ? null
    : `the build in .next was made with next ${built}, and this is next ${nextVersion}: rebuild it (npm run build) or install the package again`;
}
