import path from "node:path";
import { defineConfig } from "vitest/config";

const alias = {
  "server-only": path.resolve(import.meta.dirname, "test/support/server-only-stub.ts"),
  "@": path.resolve(import.meta.dirname),
};

// Each runner sees only its own files: Playwright's *.spec.ts are not here.
export default defineConfig({
  resolve: { alias },
  test: {
    projects: [
      {
        resolve: { alias },
        test: {
          name: "unit",
          include: ["lib/**/*.test.ts", "components/**/*.test.ts", "app/**/*.test.ts", "test/**/*.test.ts", "scripts/**/*.test.ts", "deploy/**/*.test.ts"],
          exclude: ["**/*.int.test.ts", "node_modules/**"],
          environment: "node",
        },
      },
      {
        resolve: { alias },
        test: {
          name: "integration",
          include: ["lib/**/*.int.test.ts", "test/**/*.int.test.ts"],
          environment: "node",
          globalSetup: ["test/support/global-setup.ts"],
          testTimeout: 120_000,
          hookTimeout: 300_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
