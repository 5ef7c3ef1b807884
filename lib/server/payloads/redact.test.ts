import { describe, expect, it } from "vitest";
import { redactLiterals, redactQuery } from "./redact";

describe("redactLiterals", () => {
  it.each([
    ["SELECT * FROM t WHERE name = 'alice' AND id = 42", "SELECT * FROM t WHERE name = ? AND id = ?"],
    ["SELECT 'it''s', E'x\\n', $tag$secret$tag$, $$x$$", "SELECT ?, ?, ?, ?"],
    ["SELECT * FROM t1 WHERE a = $1", "SELECT * FROM t1 WHERE a = $1"],
    ["SELECT 1.5e3, col2 FROM t", "SELECT ?, col2 FROM t"],
  ])("%s", (sql, want) => {
    expect(redactLiterals(sql)).toBe(want);
  });

  it("prefers pg_stat_statements' normalised text", () => {
    expect(redactQuery("SELECT 1", "SELECT $1")).toBe("SELECT $1");
  });
});
