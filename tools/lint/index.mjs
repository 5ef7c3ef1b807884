// typescript-eslint, with every require("typescript") of this process
// answered by this folder's TypeScript 6 (see package.json): npm may hoist
// typescript-eslint's helpers (ts-api-utils) to the root, where
// "typescript" is the project's TypeScript 7, which has no JavaScript API.
import Module, { createRequire } from "node:module";

const typescript6 = createRequire(import.meta.url).resolve("typescript");
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return resolve.call(this, request === "typescript" ? typescript6 : request, ...rest);
};

export default (await import("typescript-eslint")).default;
