// `npm pack` runs this first (package.json "prepack"): the package ships a
// built app, so nothing is built where it is installed. Three steps:
// 1. the production build (next build, only when the sources are newer);
// 2. the build's external packages as shims: Turbopack names them with a
//    hash ("pg-587764f78a6c7a9c") and links each from .next/node_modules to
//    the project's node_modules; a link is not packed, and where npm installs
//    the package its dependencies may sit one or two folders higher (hoisted),
//    so each link becomes a small package that re-exports the real one, found
//    by Node's own lookup wherever it is;
// 3. the A/B lab (lib/server/lab/cli.ts) as one ES module, dist/lab.mjs: a
//    checkout runs the TypeScript through vite (scripts/lab.mjs), an
//    installed package has no vite.
// The build runs only on the next (and react) it was built with: a build of
// 16.4.6 served by 16.5.0 answers every page with 500 "Invalid URL". So
// package.json names their exact versions, and this checks that node_modules
// holds them before it packs. (npm-shrinkwrap.json would not do: npm reads a
// package's shrinkwrap only when the registry serves it, not from a tarball.)
import { existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { buildIfNeeded } from "./build-if-needed.mjs";

const LABEL = "[inflight pack]";
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** The links in .next/node_modules (a scope folder holds its own): [link path, name it stands for]. */
function externalLinks(dir) {
  if (!existsSync(dir)) return [];
  const out = [];
  for (const entry of readdirSync(dir)) {
    const at = path.join(dir, entry);
    const stat = lstatSync(at);
    if (stat.isSymbolicLink()) {
      const name = path.relative(path.join(root, "node_modules"), path.resolve(path.dirname(at), readlinkSync(at)));
      if (name.startsWith("..") || path.isAbsolute(name)) throw new Error(`${at} links outside node_modules (${name})`);
      out.push([at, name.split(path.sep).join("/")]);
    } else if (stat.isDirectory() && entry.startsWith("@")) out.push(...externalLinks(at));
  }
  return out;
}

/** Replaces a link with a package that re-exports `name` for import() and require() alike. */
async function writeShim(link, name) {
  const real = await import(pathToFileURL(createRequire(path.join(root, "package.json")).resolve(name)).href).catch(() => import(name));
  const lines = [`export * from ${JSON.stringify(name)};`];
  if ("default" in real) lines.push(`export { default } from ${JSON.stringify(name)};`);
  rmSync(link, { force: true });
  mkdirSync(link);
  writeFileSync(path.join(link, "package.json"), `${JSON.stringify({ name: path.relative(path.join(root, ".next", "node_modules"), link), private: true, exports: { import: "./index.mjs", require: "./index.cjs" } }, null, 2)}\n`);
  writeFileSync(path.join(link, "index.mjs"), `// Made by scripts/prepack.mjs: the build's name for ${name}.\n${lines.join("\n")}\n`);
  writeFileSync(path.join(link, "index.cjs"), `// Made by scripts/prepack.mjs: the build's name for ${name}.\nmodule.exports = require(${JSON.stringify(name)});\n`);
}

async function bundleLab() {
  // rolldown comes with vite (through vitest): a dev dependency, as the lab's loader in a checkout.
  const { build } = await import("rolldown");
  await build({
    input: path.join(root, "lib", "server", "lab", "cli.ts"),
    platform: "node",
    cwd: root,
    logLevel: "warn",
    // Dependencies stay imports (installed beside the package); the project's own modules are bundled.
    external: (id) => /^(node:|[a-z@])/.test(id) && !id.startsWith("@/") && id !== "server-only",
    resolve: { alias: { "server-only": path.join(root, "test", "support", "server-only-stub.ts"), "@": root } },
    output: { file: path.join(root, "dist", "lab.mjs"), format: "esm" },
  });
}

/** Each of `names` at the exact version package.json names, in node_modules; else exit 1. */
function checkPinned(names) {
  const { dependencies } = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
  for (const name of names) {
    const have = JSON.parse(readFileSync(path.join(root, "node_modules", name, "package.json"), "utf8")).version;
    if (dependencies[name] !== have) {
      console.error(`${LABEL} package.json must name ${name} at exactly the version built with (${have}), not "${dependencies[name]}"`);
      process.exit(1);
    }
  }
}

checkPinned(["next", "react", "react-dom"]);
process.env.NEXT_TELEMETRY_DISABLED = "1";
await buildIfNeeded(root, { label: LABEL });
const links = externalLinks(path.join(root, ".next", "node_modules"));
for (const [link, name] of links) await writeShim(link, name);
if (links.length) console.log(`${LABEL} external packages as shims in .next/node_modules: ${links.map(([, name]) => name).join(", ")}`);
await bundleLab();
console.log(`${LABEL} the lab bundled into dist/lab.mjs`);
