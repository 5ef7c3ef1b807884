// The layout's promises, checked on every run: no import circle anywhere
// (type-only imports count: they tie the files together for a reader too),
// lib/ in layers that import only downward (the contract < the model < the
// view < the client; the model < the server), and no source file over 300
// lines unless it says at its top why.
import { readFileSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "..");
const SOURCE_DIRS = ["app", "components", "lib", "bench", "scripts", "e2e", "test", "deploy"];
const EXTENSIONS = [".ts", ".tsx", ".mjs"];
const MAX_LINES = 300;
/** A file may be longer when its first lines say why, in a comment starting so. */
const SIZE_REASON = /^\/\/ Size: /m;

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of entries) {
    if (name === "node_modules" || name.startsWith(".")) continue;
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) out.push(...sourceFiles(full));
    else if (EXTENSIONS.some((e) => name.endsWith(e))) out.push(full);
  }
  return out;
}

const files = [
  ...SOURCE_DIRS.flatMap((d) => sourceFiles(path.join(ROOT, d))),
  ...["instrumentation.ts", "proxy.ts", "next.config.ts"].map((f) => path.join(ROOT, f)),
];
const known = new Set(files);

/**
 * lib/'s layers, by folder (or file), lowest first: each may import its own
 * and the layers it lists, never one above it. Tests count (a test of the
 * view that needs the live store is the client's).
 */
export const LAYERS = {
  contract: { paths: ["lib/schemas/", "lib/format.ts", "lib/duration.ts"], imports: [] },
  model: { paths: ["lib/model/"], imports: ["contract"] },
  view: { paths: ["lib/view/"], imports: ["contract", "model"] },
  client: { paths: ["lib/client/", "components/"], imports: ["contract", "model", "view"] },
  server: { paths: ["lib/server/"], imports: ["contract", "model"] },
} as const satisfies Record<string, { paths: readonly string[]; imports: readonly string[] }>;
type Layer = keyof typeof LAYERS;

export function layerOf(file: string): Layer | null {
  const rel = path.relative(ROOT, file).split(path.sep).join("/");
  for (const [layer, { paths }] of Object.entries(LAYERS) as [Layer, (typeof LAYERS)[Layer]][])
    if (paths.some((p) => rel === p || rel.startsWith(p))) return layer;
  return null;
}

/** "from -> to (from layer -> to layer)" for each import that runs up or across to a layer not listed. */
export function layerBreaches(graph: Map<string, string[]>): string[] {
  const out: string[] = [];
  for (const [from, tos] of graph) {
    const a = layerOf(from);
    if (!a) continue;
    for (const to of tos) {
      const b = layerOf(to);
      if (!b || b === a || (LAYERS[a].imports as readonly string[]).includes(b)) continue;
      out.push(`${path.relative(ROOT, from)} -> ${path.relative(ROOT, to)} (${a} -> ${b})`);
    }
  }
  return out.sort();
}

/** Every import, export-from and dynamic import of a file, resolved to a file of the tree. */
export function importsOf(file: string, text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(
    /(?:import|export)\s[^;]*?from\s*["']([^"']+)["']|import\s*\(\s*["']([^"']+)["']\s*\)|^import\s+["']([^"']+)["']/gm,
  )) {
    const spec = m[1] ?? m[2] ?? m[3];
    const base = spec.startsWith("@/")
      ? path.join(ROOT, spec.slice(2))
      : spec.startsWith(".")
        ? path.resolve(path.dirname(file), spec)
        : null;
    if (!base) continue;
    const hit = ["", ...EXTENSIONS, "/index.ts"].map((e) => base + e).find((p) => known.has(p));
    if (hit) out.push(hit);
  }
  return out;
}

/** Strongly connected components with more than one file (or a file importing itself). */
function circles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(scc.map((f) => path.relative(ROOT, f)).sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return found;
}

describe("the layout", () => {
  const texts = new Map(files.map((f) => [f, readFileSync(f, "utf8")]));

  it("finds the tree's files and their imports (a check that reads nothing cannot fail)", () => {
    expect(files.length).toBeGreaterThan(100);
    const collector = path.join(ROOT, "lib/server/collector/collector.ts");
    expect(importsOf(collector, texts.get(collector)!).map((f) => path.relative(ROOT, f))).toContain("lib/server/collector/connection.ts");
  });

  it("has no import circle", () => {
    const graph = new Map([...texts].map(([f, text]) => [f, importsOf(f, text)]));
    expect(circles(graph)).toEqual([]);
  });

  it("keeps lib/'s layers: no import from a lower layer to a higher one", () => {
    const graph = new Map([...texts].map(([f, text]) => [f, importsOf(f, text)]));
    expect(layerBreaches(graph)).toEqual([]);
  });

  it("has no circle between lib/server's folders (boot over http over runtime over the collector, ...)", () => {
    const server = path.join(ROOT, "lib", "server") + path.sep;
    const folderOf = (f: string) => (f.startsWith(server) ? f.slice(server.length).split(path.sep)[0] : null);
    const folders = new Map<string, string[]>();
    for (const [f, text] of texts) {
      const a = folderOf(f);
      if (!a || /\.test\.ts$/.test(f)) continue;
      const edges = folders.get(a) ?? [];
      for (const b of importsOf(f, text).map(folderOf)) if (b && b !== a && !edges.includes(b)) edges.push(b);
      folders.set(a, edges);
    }
    expect(folders.size).toBeGreaterThan(8);
    expect(circles(folders)).toEqual([]);
  });

  it("detects an import that runs up a layer", () => {
    const at = (p: string) => path.join(ROOT, p);
    const graph = new Map([
      [at("lib/model/x.ts"), [at("lib/view/y.ts"), at("lib/schemas/z.ts")]],
      [at("lib/server/a.ts"), [at("lib/client/b.ts"), at("lib/model/x.ts")]],
    ]);
    expect(layerBreaches(graph)).toEqual([
      "lib/model/x.ts -> lib/view/y.ts (model -> view)",
      "lib/server/a.ts -> lib/client/b.ts (server -> client)",
    ]);
  });

  it("detects a circle when there is one", () => {
    expect(
      circles(
        new Map([
          ["a", ["b"]],
          ["b", ["c"]],
          ["c", ["a"]],
          ["d", ["a"]],
        ]),
      ),
    ).toEqual([["a", "b", "c"].map((f) => path.relative(ROOT, f)).sort()]);
  });

  it(`has no source file over ${MAX_LINES} lines without a reason at its top`, () => {
    const long = [...texts]
      .map(([f, text]) => ({
        file: path.relative(ROOT, f),
        lines: text.split("\n").length,
        reason: SIZE_REASON.test(text.split("\n").slice(0, 12).join("\n")),
      }))
      .filter((f) => f.lines > MAX_LINES && !f.reason)
      .map((f) => `${f.file} (${f.lines} lines)`);
    expect(long).toEqual([]);
  });

  it("keeps the server's modules out of the browser: every lib/server module starts with server-only", () => {
    const server = [...texts].filter(([f]) => f.includes(`${path.sep}lib${path.sep}server${path.sep}`) && !/\.test\.ts$/.test(f));
    expect(server.length).toBeGreaterThan(20);
    const missing = server
      .filter(([, text]) => !/^import "server-only";/m.test(text.split("\n").slice(0, 20).join("\n")))
      .map(([f]) => path.relative(ROOT, f));
    expect(missing).toEqual([]);
  });
});
