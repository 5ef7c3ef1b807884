import "server-only";
import { NewerSchemaError } from "./schema";

/** What went wrong with the file, in words: not a database, cannot be written, or SQLite's own message. */
export function describeFailure(file: string, err: unknown, what: string): string {
  const code = (err as { code?: string }).code ?? "";
  const message = (err as Error)?.message?.split("\n")[0] ?? String(err);
  if (err instanceof NewerSchemaError) return `${file} cannot be used: ${message}`;
  if (code === "SQLITE_NOTADB" || code.startsWith("SQLITE_CORRUPT"))
    return `${file} is not a history inflight can read (${message}): move it away and a new one is started`;
  if (
    code.startsWith("SQLITE_READONLY") ||
    code.startsWith("SQLITE_CANTOPEN") ||
    code === "SQLITE_PERM" ||
    /^E(ACCES|PERM|ROFS|NOTDIR|ISDIR|EXIST)$/.test(code) ||
    /directory does not exist/.test(message)
  ) {
    return `${file} cannot be written (${message})`;
  }
  return `${what} ${file} failed (${code && !message.startsWith(code) ? `${code}: ` : ""}${message})`;
}
