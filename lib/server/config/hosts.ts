import "server-only";

// The names the server answers to. A web page can rebind its own name to
// 127.0.0.1 (DNS rebinding) and then read this server as if it were its own
// origin; the browser still sends the page's name in Host, so a request is
// served only when its Host is one of these.

/** A host name (lowercase; an IPv6 address in brackets) and its port, null when none was given. */
export interface HostName {
  name: string;
  port: number | null;
}

const LABEL = "[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?";
const HOST = new RegExp(`^(\\[[0-9a-f:.]+\\]|${LABEL}(?:\\.${LABEL})*)(?::(\\d{1,5}))?$`, "i");
const LOOPBACK_NAMES = ["127.0.0.1", "localhost", "[::1]"] as const;
const WILDCARDS = new Set(["0.0.0.0", "::", "[::]"]);

/** "Example.org:8443" -> {name: "example.org", port: 8443}; null when it is not host[:port]. */
export function parseHostPort(text: string): HostName | null {
  const m = HOST.exec(text.trim());
  if (!m) return null;
  const port = m[2] === undefined ? null : Number(m[2]);
  if (port !== null && (port < 1 || port > 65535)) return null;
  return { name: m[1].toLowerCase(), port };
}

/** INFLIGHT_ALLOWED_HOSTS: "a.example,b.example:8443"; the first entry that is not host[:port] when one is bad. */
export function parseHostList(raw: string | undefined): { hosts: HostName[] } | { bad: string } {
  const hosts: HostName[] = [];
  for (const part of (raw ?? "")
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)) {
    const host = parseHostPort(part);
    if (!host) return { bad: part };
    hosts.push(host);
  }
  return { hosts };
}

/** HOST as a Host header spells it ("::1" -> "[::1]"). */
function asHostName(host: string): string {
  const bare = host.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  return bare.includes(":") ? `[${bare}]` : bare;
}

/**
 * What the server answers to: the loopback names on its own port, the
 * address HOST names when it is a single one (not a wildcard), and
 * INFLIGHT_ALLOWED_HOSTS.
 */
export function servedHosts(host: string, port: number, allowed: HostName[]): HostName[] {
  const own = asHostName(host);
  const names = [...LOOPBACK_NAMES, ...(WILDCARDS.has(own) || (LOOPBACK_NAMES as readonly string[]).includes(own) ? [] : [own])];
  return [...names.map((name) => ({ name, port })), ...allowed];
}

const DEFAULT_PORTS = [80, 443];

/**
 * Does a Host header name one of `served`? An entry without a port matches
 * that name without a port (behind a proxy on 80 or 443) and on `port`
 * itself; an entry with one matches exactly, a Host without a port being 80
 * or 443.
 */
export function hostServed(header: string | null, served: HostName[], port: number): boolean {
  const host = header === null ? null : parseHostPort(header);
  if (!host) return false;
  return served.some((s) => {
    if (s.name !== host.name) return false;
    if (s.port === null) return host.port === null || host.port === port;
    return host.port === s.port || (host.port === null && DEFAULT_PORTS.includes(s.port));
  });
}

/**
 * An Origin header names the same host and port as the Host header (any of
 * http and https: behind a TLS proxy the request itself is http).
 */
export function originMatchesHost(origin: string | null, hostHeader: string | null): boolean {
  if (!origin || origin === "null" || !hostHeader) return false;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return false;
  const host = parseHostPort(hostHeader);
  if (!host) return false;
  const defaultPort = url.protocol === "https:" ? 443 : 80;
  const originPort = url.port === "" ? defaultPort : Number(url.port);
  return url.hostname.toLowerCase() === host.name && originPort === (host.port ?? defaultPort);
}
