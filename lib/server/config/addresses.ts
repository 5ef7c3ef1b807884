import "server-only";
import { readFileSync, readdirSync, readlinkSync } from "node:fs";

// Network addresses: which are loopback, and what this process actually
// listens on (read from /proc), which can differ from what HOST said.

export function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || host === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** "0100007F" -> 127.0.0.1; 32 hex digits -> an IPv6 address (/proc/net/tcp6 order). */
export function decodeProcAddress(hex: string): string {
  const word = (h: string) => h.match(/../g)!.reverse().join("");
  if (hex.length === 8)
    return word(hex)
      .match(/../g)!
      .map((b) => parseInt(b, 16))
      .join(".");
  const full = hex.toLowerCase().match(/.{8}/g)!.map(word).join("");
  if (full.startsWith("00000000000000000000ffff")) return `::ffff:${decodeProcAddress(word(full.slice(24)))}`;
  const groups = full.match(/.{4}/g)!.map((g) => parseInt(g, 16).toString(16));
  // The longest run of zero groups becomes "::".
  let best = { at: -1, len: 0 };
  for (let i = 0; i < 8;) {
    let j = i;
    while (j < 8 && groups[j] === "0") j++;
    if (j - i > best.len) best = { at: i, len: j - i };
    i = j === i ? i + 1 : j;
  }
  if (best.len < 2) return groups.join(":");
  return `${groups.slice(0, best.at).join(":")}::${groups.slice(best.at + best.len).join(":")}`;
}

/** LISTEN sockets on `port` among those with the given inodes, from /proc/net/tcp(6) text. */
export function listenAddresses(procText: string, port: number, inodes: Set<string>): string[] {
  const out: string[] = [];
  for (const line of procText.split("\n").slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length < 10 || f[3] !== "0A" || !inodes.has(f[9])) continue;
    const [addr, portHex] = f[1].split(":");
    if (parseInt(portHex, 16) === port) out.push(decodeProcAddress(addr));
  }
  return out;
}

/** Addresses this process listens on at `port`; null where /proc cannot say. */
export function ownListenAddresses(port: number): string[] | null {
  try {
    const inodes = new Set<string>();
    for (const fd of readdirSync("/proc/self/fd")) {
      let link = "";
      try {
        link = readlinkSync(`/proc/self/fd/${fd}`, { encoding: "utf8" });
      } catch {
        // closed meanwhile (the directory listing's own fd, for one)
      }
      const m = /^socket:\[(\d+)\]$/.exec(link);
      if (m) inodes.add(m[1]);
    }
    return ["/proc/net/tcp", "/proc/net/tcp6"].flatMap((f) => listenAddresses(readFileSync(f, "utf8"), port, inodes));
  } catch {
    return null;
  }
}

export function isLoopbackAddress(addr: string): boolean {
  return isLoopback(addr) || /^::ffff:127\./.test(addr);
}
