import { describe, expect, it } from "vitest";
import { hostServed, originMatchesHost, parseHostList, parseHostPort, servedHosts } from "./hosts";

describe("parseHostPort", () => {
  it.each([
    ["127.0.0.1:3000", { name: "127.0.0.1", port: 3000 }],
    ["Dash.Example", { name: "dash.example", port: null }],
    ["[::1]:8080", { name: "[::1]", port: 8080 }],
    ["my_host.internal:443", { name: "my_host.internal", port: 443 }],
    ["evil.example/x", null],
    ["a b", null],
    ["host:0", null],
    ["host:70000", null],
    ["*", null],
    ["", null],
  ])("%s -> %o", (text, want) => {
    expect(parseHostPort(text)).toEqual(want);
  });

  it("reads a comma list, naming the first bad entry", () => {
    expect(parseHostList("a.example, b.example:8443,")).toEqual({
      hosts: [
        { name: "a.example", port: null },
        { name: "b.example", port: 8443 },
      ],
    });
    expect(parseHostList("a.example,http://b.example")).toEqual({ bad: "http://b.example" });
    expect(parseHostList(undefined)).toEqual({ hosts: [] });
  });
});

describe("hostServed", () => {
  const served = servedHosts("127.0.0.1", 3000, [
    { name: "dash.example", port: null },
    { name: "10.0.0.5", port: 8443 },
  ]);
  it.each([
    ["127.0.0.1:3000", true],
    ["localhost:3000", true],
    ["LOCALHOST:3000", true],
    ["[::1]:3000", true],
    ["127.0.0.1:3001", false],
    ["127.0.0.1", false],
    ["evil.example:3000", false],
    ["evil.example", false],
    ["127.0.0.2:3000", false],
    ["dash.example", true],
    ["dash.example:3000", true],
    ["dash.example:4000", false],
    ["10.0.0.5:8443", true],
    ["10.0.0.5:3000", false],
    ["", false],
    [null, false],
  ])("Host %s -> %s", (host, want) => {
    expect(hostServed(host, served, 3000)).toBe(want);
  });

  it("adds HOST when it names one address, not a wildcard", () => {
    expect(hostServed("192.168.1.9:3000", servedHosts("192.168.1.9", 3000, []), 3000)).toBe(true);
    expect(hostServed("192.168.1.9:3000", servedHosts("0.0.0.0", 3000, []), 3000)).toBe(false);
    expect(hostServed("[fd00::5]:3000", servedHosts("fd00::5", 3000, []), 3000)).toBe(true);
    expect(servedHosts("::", 3000, [])).toHaveLength(3);
  });
});

describe("originMatchesHost", () => {
  it.each([
    ["http://127.0.0.1:3000", "127.0.0.1:3000", true],
    ["https://dash.example", "dash.example", true],
    ["https://dash.example", "dash.example:443", true],
    ["http://dash.example:80", "dash.example", true],
    ["http://127.0.0.1:4000", "127.0.0.1:3000", false],
    ["http://evil.example", "evil.example:3000", false],
    ["http://evil.example:3000", "127.0.0.1:3000", false],
    ["http://localhost:3000", "127.0.0.1:3000", false],
    ["null", "127.0.0.1:3000", false],
    ["file://", "127.0.0.1:3000", false],
    ["not a url", "127.0.0.1:3000", false],
    [null, "127.0.0.1:3000", false],
  ])("Origin %s, Host %s -> %s", (origin, host, want) => {
    expect(originMatchesHost(origin, host)).toBe(want);
  });
});
