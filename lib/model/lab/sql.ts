// The user's own SQL for the lab (pure): one SELECT, before PostgreSQL sees
// it. The server checks the rest (a plan without writes, a read-only
// transaction); this gives the plain 400 first.

/** The text without comments, and without a trailing semicolon. */
function strip(sql: string): string {
  return sql
    .replace(/\/\*[\s\S]*?\*\//g, " ")
    .replace(/--[^\n]*/g, " ")
    .trim()
    .replace(/;\s*$/, "")
    .trim();
}

/** Why `sql` is not one read-only SELECT, or null when it may be one. */
export function customSqlProblem(sql: string): string | null {
  const text = strip(sql);
  if (!text) return "is empty";
  if (!/^(select|with|table|values)\b/i.test(text))
    return `must be one read-only SELECT, not ${text.split(/\s+/)[0].toUpperCase().slice(0, 20)}`;
  // Outside string literals and quoted names, a semicolon means a second statement.
  const bare = text.replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"|\$([A-Za-z_]*)\$[\s\S]*?\$\1\$/g, "''");
  if (bare.includes(";")) return "must be one statement (no ; between statements)";
  if (/\binto\b/i.test(bare)) return "must not create a table (SELECT INTO)";
  if (/\bfor\s+(update|share|no\s+key\s+update|key\s+share)\b/i.test(bare)) return "must not lock rows (FOR UPDATE / FOR SHARE)";
  return null;
}

/** The text as it is run: without the trailing semicolon. */
export function runnableSql(sql: string): string {
  return sql.trim().replace(/;\s*$/, "").trim();
}
