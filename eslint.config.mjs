// `npm run lint`, and the first stage of `npm test`. typescript-eslint parses
// without type information: its type-aware mode needs TypeScript's JavaScript
// API, which the project's TypeScript 7 does not have (tools/lint/package.json).
// The hooks rules are errors: a missing dependency is a stale closure, one way
// a panel keeps showing an old figure.
import js from "@eslint/js";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import tseslint from "inflight-lint";

export default tseslint.config(
  {
    ignores: [
      ".next/**",
      ".inflight/**",
      "bench/tmp/**",
      "test-results/**",
      "playwright-report/**",
      "e2e/.artifacts/**",
      "next-env.d.ts",
      "tools/lint/node_modules/**",
      "dist/**",
    ],
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    plugins: { "react-hooks": reactHooks },
    rules: {
      "react-hooks/rules-of-hooks": "error",
      "react-hooks/exhaustive-deps": "error",
      // `const { key: _key, ...rest } = x` is how the code drops a key.
      "@typescript-eslint/no-unused-vars": ["error", { ignoreRestSiblings: true }],
    },
  },
);
