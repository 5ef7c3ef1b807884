import { describe, expect, it } from "vitest";
import { decodeProcAddress, isLoopback, listenAddresses } from "./addresses";

describe("listen addresses from /proc/net/tcp(6)", () => {
  it.each([
    ["0100007F", "127.0.0.1"],
    ["00000000", "0.0.0.0"],
    ["0100A8C0", "192.168.0.1"],
    ["00000000000000000000000000000000", "::"],
    ["00000000000000000000000001000000", "::1"],
    ["0000000000000000FFFF00000100007F", "::ffff:127.0.0.1"],
    ["B80D0120000000000000000001000000", "2001:db8::1"],
  ])("%s -> %s", (hex, want) => {
    expect(decodeProcAddress(hex)).toBe(want);
  });

  it("keeps LISTEN sockets of the given inodes on the port", () => {
    const text = [
      "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode",
      "   0: 0100007F:0BB8 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 111 1 0 100 0 0 10 0",
      "   1: 00000000:0BB8 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 222 1 0 100 0 0 10 0",
      "   2: 0100007F:0BB8 0100007F:D431 01 00000000:00000000 00:00000000 00000000     0        0 111 1 0 100 0 0 10 0",
      "   3: 00000000:0BB9 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 111 1 0 100 0 0 10 0",
    ].join("\n");
    expect(listenAddresses(text, 3000, new Set(["111"]))).toEqual(["127.0.0.1"]);
    expect(listenAddresses(text, 3000, new Set(["111", "222"]))).toEqual(["127.0.0.1", "0.0.0.0"]);
  });
});

describe("isLoopback", () => {
  it.each([
    ["127.0.0.1", true],
    ["127.1.2.3", true],
    ["localhost", true],
    ["::1", true],
    ["[::1]", true],
    ["0.0.0.0", false],
    ["192.168.0.1", false],
    ["example.com", false],
  ])("%s -> %s", (host, want) => expect(isLoopback(host)).toBe(want));
});
