import "server-only";
import { RowShapeError } from "../pg/run";

/**
 * An error the statement raised while the session goes on working (a
 * timeout, a permission, rows of an unexpected shape), as opposed to a lost
 * connection (FATAL, class 08 / 57P, a socket error).
 */
export function isStatementError(err: unknown): boolean {
  if (err instanceof RowShapeError) return true;
  const e = err as { severity?: string; code?: string };
  return e?.severity === "ERROR" && typeof e.code === "string" && !/^(08|57P)/.test(e.code);
}

/** The SQLSTATE of a PostgreSQL error, if it is one. */
export function sqlState(err: unknown): string | undefined {
  const code = (err as { code?: unknown })?.code;
  return typeof code === "string" ? code : undefined;
}

/** The first line of an error, at most 300 characters, with `secret` (a password) masked. */
export function errorText(err: unknown, secret: string | null): string {
  const e = err as { message?: string; code?: string };
  let text = (e?.message || e?.code || String(err)).split("\n")[0].slice(0, 300);
  if (secret) text = text.split(secret).join("***");
  return text;
}

export function passwordOf(url: string): string | null {
  try {
    const p = new URL(url).password;
    return p ? decodeURIComponent(p) : null;
  } catch {
    return null;
  }
}
