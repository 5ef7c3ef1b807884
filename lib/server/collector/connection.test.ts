import { describe, expect, it } from "vitest";
import { RowShapeError } from "../pg/run";
import { RETRY_MS, retryDelay, tcpEndpoint } from "./connection";
import { isStatementError } from "./errors";

describe("retryDelay", () => {
  it("backs off and stays at 5 s", () => {
    expect(Array.from({ length: RETRY_MS.length }, (_, i) => retryDelay(i))).toEqual([...RETRY_MS]);
    for (const attempt of [RETRY_MS.length, 20, 1000]) expect(retryDelay(attempt)).toBe(5000);
    expect(retryDelay(-1)).toBe(100);
  });
});

describe("tcpEndpoint", () => {
  it.each([
    ["postgres://u:p@db.example:6432/app", { host: "db.example", port: 6432 }],
    ["postgresql://db.example/app", { host: "db.example", port: 5432 }],
    ["postgres://u@[::1]:5433/x", { host: "::1", port: 5433 }],
    ["postgres://u@/app?host=/var/run/postgresql", null],
    ["postgres://u@h1,h2/app", null],
    ["not a url", null],
  ])("%s -> %o", (url, want) => {
    expect(tcpEndpoint(url)).toEqual(want);
  });
});

describe("isStatementError", () => {
  const pgError = (severity: string, code: string) => Object.assign(new Error("x"), { severity, code });
  it.each([
    [pgError("ERROR", "42501"), true],
    [pgError("ERROR", "57014"), true],
    [new RowShapeError("activity", "pid: expected number"), true],
    [pgError("FATAL", "57P01"), false],
    [pgError("ERROR", "08006"), false],
    [Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }), false],
    [new Error("Connection terminated unexpectedly"), false],
  ])("%o -> %s", (err, want) => {
    expect(isStatementError(err)).toBe(want);
  });
});
