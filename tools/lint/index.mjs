// typescript-eslint, resolved from here so that it parses with this folder's
// TypeScript 6 (see package.json) rather than the project's TypeScript 7.
export { default } from "typescript-eslint";
