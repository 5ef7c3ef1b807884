import path from "node:path";
import { defineConfig } from "vitest/config";

const alias = {
  "server-only": path.resolve(import.meta.dirname, "test/support/server-only-stub.ts"),
  "@": path.resolve(import.meta.dirname),
};

const INTEGRATION = ["lib/**/*.int.test.ts", "test/**/*.int.test.ts"];

/**
 * Integration tests whose figures are a rate, a count of slots, a share of a
 * second of server time or the event loop's delay: another test's load on
 * the two cores changes them. They run one at a time, after everything
 * else. The other integration tests wait for conditions (a finding, a
 * restart, a page of history), and run two at a time: side by side with the
 * one-at-a-time run of 12-04, 395 s against 679 s for the whole set.
 */
const TIMED = [
  "lib/server/collector/budget.int.test.ts",
  "lib/server/collector/defaults.int.test.ts",
  "lib/server/collector/faults.int.test.ts",
  "lib/server/collector/lag.int.test.ts",
  "lib/server/collector/read-share.int.test.ts",
  "lib/server/collector/time-left.int.test.ts",
  "lib/server/collector/wait-sampling.int.test.ts",
  "lib/server/collector/wait-sampling-runs.int.test.ts",
  "lib/server/collector/wait-sampling-profile.int.test.ts",
  "test/aspects.int.test.ts",
  "test/crowd.int.test.ts",
  "test/load.int.test.ts",
  "test/metrics.int.test.ts",
  "test/history-lock.int.test.ts",
];

// Each runner sees only its own files: Playwright's *.spec.ts are not here.
// The unit tests and the integration tests that wait for conditions run
// first, together; the timed ones after them, alone.
export default defineConfig({
  resolve: { alias },
  test: {
    maxWorkers: 2,
    projects: [
      {
        resolve: { alias },
        test: {
          name: "unit",
          include: [
            "lib/**/*.test.ts",
            "components/**/*.test.ts",
            "app/**/*.test.ts",
            "test/**/*.test.ts",
            "scripts/**/*.test.ts",
            "bin/**/*.test.ts",
            "deploy/**/*.test.ts",
            "bench/**/*.test.ts",
          ],
          exclude: ["**/*.int.test.ts", "node_modules/**", "bench/tmp/**"],
          environment: "node",
          // The unit tests restore what they change (fake timers, spies) and
          // hold no server: one module graph per worker, not one per file.
          // Here 38 s -> 9 s for the 91 files, the same 901 tests passing in
          // any order (--sequence.shuffle).
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
      {
        resolve: { alias },
        test: {
          name: "integration",
          include: INTEGRATION,
          exclude: [...TIMED, "node_modules/**"],
          environment: "node",
          globalSetup: ["test/support/global-setup.ts"],
          testTimeout: 120_000,
          hookTimeout: 300_000,
          sequence: { groupOrder: 0 },
        },
      },
      {
        resolve: { alias },
        test: {
          name: "integration-timed",
          include: TIMED,
          environment: "node",
          globalSetup: ["test/support/global-setup.ts"],
          testTimeout: 120_000,
          hookTimeout: 300_000,
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
