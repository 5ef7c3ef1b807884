// The pieces every row of the table is made of: a row, its verdict, and
// how numbers are written in it.

export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface Row {
  fig: string;
  what: string;
  measured: string;
  goal: string;
  verdict: "met" | "MISSED" | "n/a" | "not measured";
}

export const fmt = (x: unknown, digits = 2): string => (typeof x === "number" && Number.isFinite(x) ? x.toFixed(digits) : "?");
export const pct = (x: unknown, digits = 1): string =>
  typeof x === "number" && Number.isFinite(x) ? `${(x * 100).toFixed(digits)}%` : "?";
/** A change as a share, with its sign: +3.0%, -1.2%. */
export const signedPct = (x: unknown): string => (typeof x === "number" && x >= 0 ? "+" : "") + pct(x);
export const mb = (x: unknown): string => (typeof x === "number" ? `${(x / 1048576).toFixed(1)} MB` : "?");
export const known = (...xs: unknown[]) => xs.every((x) => typeof x === "number" && Number.isFinite(x));

export function verdict(ok: boolean | null): Row["verdict"] {
  return ok === null ? "not measured" : ok ? "met" : "MISSED";
}
