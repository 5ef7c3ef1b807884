import { describe, expect, it } from "vitest";
import { majorOf, serverAddress } from "./identity";

describe("serverAddress", () => {
  it.each([
    ["postgres://u:secret@127.0.0.1:55501/app", "127.0.0.1:55501/app"],
    ["postgres://u@DB1.internal/app", "db1.internal:5432/app"],
    ["postgresql://inflight@[::1]:5433/postgres", "[::1]:5433/postgres"],
    ["postgres://inflight@localhost:5432", "localhost:5432/inflight"],
    ["postgres://u@localhost/app?host=/var/run/postgresql&port=5433", "/var/run/postgresql:5433/app"],
  ])("%s -> %s", (url, address) => {
    expect(serverAddress(url)).toBe(address);
  });

  it("never holds the password, and is null for what is not a URL", () => {
    expect(serverAddress("postgres://u:hunter2@h:1/d")).not.toContain("hunter2");
    expect(serverAddress("not a url")).toBeNull();
  });
});

describe("majorOf", () => {
  it("reads the major of server_version_num", () => {
    expect(majorOf(180004)).toBe(18);
    expect(majorOf(190000)).toBe(19);
  });
});
