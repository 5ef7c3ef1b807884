import { describe, expect, it } from "vitest";
import { grantMonitorSql, quoteIdent } from "./advice";

describe("quoteIdent", () => {
  it.each([
    ["inflight", "inflight"],
    ["mon_1$", "mon_1$"],
    ["Monitor", '"Monitor"'],
    ["user", '"user"'],
    ["1st", '"1st"'],
    ["a-b", '"a-b"'],
  ])("%s -> %s", (name, sql) => expect(quoteIdent(name)).toBe(sql));
});

it("writes the GRANT for a role with its name quoted", () => {
  expect(grantMonitorSql("Mon")).toBe('GRANT pg_monitor TO "Mon";');
});
