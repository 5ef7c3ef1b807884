// `npm pack` runs this first (package.json "prepack"): the package ships a
// built app, so nothing is built where it is installed. Three steps:
// 1. the production build (next build, only when the sources are newer);
// 2. the build's external packages as shims, and its stamp of the next it
//    was made with (scripts/external-shims.mjs; a build by build-if-needed.mjs
//    has them already, one by `next build` alone not);
// 3. the A/B lab (lib/server/lab/cli.ts) as one ES module, dist/lab.mjs: a
//    checkout runs the TypeScript through vite (scripts/lab.mjs), an
//    installed package has no vite.
// The build runs only on the next (and react) it was built with: a build of
// 16.4.6 served by 16.5.0 answers every page with 500 "Invalid URL". So
// package.json names their exact versions, and this checks that node_modules
// holds them before it packs. (npm-shrinkwrap.json would not do: npm reads a
// package's shrinkwrap only when the registry serves it, not from a tarball.)
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildIfNeeded } from "./build-if-needed.mjs";
import { shimExternals, stampBuild } from "./external-shims.mjs";

const LABEL = "[inflight pack]";
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

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
await shimExternals(root, { label: LABEL });
stampBuild(root);
await bundleLab();
console.log(`${LABEL} the lab bundled into dist/lab.mjs`);
