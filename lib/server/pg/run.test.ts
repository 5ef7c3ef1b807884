import { describe, expect, it } from "vitest";
import { QUERIES, type QueryName } from "./queries";
import { sqlText, statementOf } from "./run";

// What pg_stat_activity keeps of a query by default (track_activity_query_size).
const KEPT_BYTES = 1024;

describe("statements as sent", () => {
  it.each(Object.keys(QUERIES) as QueryName[])("%s.sql carries its marker within what pg_stat_activity keeps, near the start", (name) => {
    const text = sqlText(name);
    const marker = `/* inflight:${name} */`;
    const at = text.indexOf(marker);
    expect(at, `${name}.sql as sent: ${text.slice(0, 120)}`).toBeGreaterThanOrEqual(0);
    expect(Buffer.byteLength(text.slice(0, at + marker.length))).toBeLessThan(KEPT_BYTES / 4);
  });

  it("leaves out only the comment lines that head a file", () => {
    expect(statementOf("-- what it reads\n--\n\n  -- indented\nSELECT /* inflight:x */ 1 -- trailing\n-- inside\nFROM t\n")).toBe(
      "SELECT /* inflight:x */ 1 -- trailing\n-- inside\nFROM t\n",
    );
    expect(statementOf("SELECT 1")).toBe("SELECT 1");
  });
});
