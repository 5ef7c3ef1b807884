// The phases scripts/build-if-needed.mjs reads from `next build`'s own lines.
import { describe, expect, it } from "vitest";
// @ts-expect-error plain ESM without types
import { phaseOf, phaseSummary } from "./build-if-needed.mjs";

describe("phaseOf", () => {
  it("reads each phase next build 16 prints", () => {
    expect(phaseOf("  Creating an optimized production build ...")).toBe("Creating an optimized production build");
    expect(phaseOf("  Running TypeScript ...")).toBe("Running TypeScript");
    expect(phaseOf("  Collecting page data using 1 worker ...")).toBe("Collecting page data");
    expect(phaseOf("  Generating static pages using 2 workers (0/3) ...")).toBe("Generating static pages");
    expect(phaseOf("  Finalizing page optimization ...")).toBe("Finalizing page optimization");
    expect(phaseOf("\x1b[32m✓\x1b[39m Collecting build traces ...")).toBe("Collecting build traces");
  });

  it("ignores lines that end a phase or say something else", () => {
    expect(phaseOf("  Finished TypeScript in 2.6s ...")).toBeNull();
    expect(phaseOf("✓ Compiled successfully in 8.2s")).toBeNull();
    // Lines of a warning's code frame are not phases.
    expect(
      phaseOf('  \x1b[90m16 |\x1b[0m ....length) return `${dir} has no ${missing.join(", ")}: give the bin directory of a Postg...'),
    ).toBeNull();
    expect(phaseOf('  17 | ... spawnSync(path.join(dir, "postgres"), ["--version"], { encoding: "utf8", timeout: 10_0...')).toBeNull();
    expect(phaseOf("✓ Generating static pages using 1 worker (3/3) in 98ms")).toBeNull();
    expect(phaseOf("▲ Next.js 16.4.6 (Turbopack)")).toBeNull();
    expect(phaseOf("")).toBeNull();
  });
});

describe("phaseSummary", () => {
  it("each phase with its seconds", () => {
    expect(
      phaseSummary([
        { name: "Creating an optimized production build", ms: 8200 },
        { name: "Running TypeScript", ms: 12_400 },
      ]),
    ).toBe("Creating an optimized production build 8.2 s, Running TypeScript 12 s");
  });
});
