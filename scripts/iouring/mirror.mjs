// Which Debian mirror to bootstrap from, and whether it has a suite.
import { readFileSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import path from "node:path";
import { Unavailable } from "./errors.mjs";
import { listDir } from "./layout.mjs";

/** The first http(s) mirror of the host's apt sources that is not the security archive. */
export function hostMirror() {
  if (process.env.IOURING_TESTS_MIRROR) return process.env.IOURING_TESTS_MIRROR.replace(/\/+$/, "");
  const files = ["/etc/apt/sources.list", ...listDir("/etc/apt/sources.list.d").map((f) => path.join("/etc/apt/sources.list.d", f))];
  for (const file of files) {
    let text;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      continue;
    }
    const uris = file.endsWith(".sources")
      ? [...text.matchAll(/^URIs:\s*(.+)$/gim)].flatMap((m) => m[1].trim().split(/\s+/))
      : [...text.matchAll(/^\s*deb\s+(?:\[[^\]]*\]\s+)?(\S+)/gm)].map((m) => m[1]);
    const found = uris.find((u) => /^https?:\/\//.test(u) && !/security/.test(u));
    if (found) return found.replace(/\/+$/, "");
  }
  throw new Unavailable(
    "no http(s) Debian mirror in /etc/apt/sources.list*; fix: add one, or set IOURING_TESTS_MIRROR=http://deb.debian.org/debian",
  );
}

/** HTTP status of <mirror>/dists/<suite>/Release, or the network error's text. */
export function probeRelease(mirror, suite) {
  const url = `${mirror}/dists/${suite}/Release`;
  const proxy = process.env.http_proxy || process.env.HTTP_PROXY;
  return new Promise((resolve) => {
    const useProxy = proxy && url.startsWith("http:");
    const target = useProxy ? new URL(proxy) : new URL(url);
    const client = target.protocol === "https:" ? https : http;
    const req = client.request(
      { method: "GET", host: target.hostname, port: target.port || undefined, path: useProxy ? url : target.pathname, timeout: 15_000 },
      (res) => {
        res.resume();
        resolve(res.statusCode === 200 ? "ok" : `HTTP ${res.statusCode}`);
        req.destroy();
      },
    );
    req.on("timeout", () => req.destroy(new Error("no answer in 15 s")));
    req.on("error", (err) => resolve(err.message));
    req.end();
  });
}
