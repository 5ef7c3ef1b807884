// /proc readers: CPU time and RSS of a process, and the process that listens
// on a TCP port (`next start` may fork: the listener is the server).
import { readFileSync, readdirSync, readlinkSync } from "node:fs";
import os from "node:os";
import { execFileSync } from "node:child_process";

export const CLK_TCK = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** utime + stime of a process, in seconds; null when it is gone. */
export function cpuSeconds(pid: number): number | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    const rest = text.slice(text.lastIndexOf(")") + 2).split(" ");
    // rest[0] is field 3 (state): utime is field 14, stime field 15
    return (Number(rest[11]) + Number(rest[12])) / CLK_TCK;
  } catch {
    return null;
  }
}

/** VmRSS in bytes; null when the process is gone. */
export function rssBytes(pid: number): number | null {
  try {
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** VmRSS and its anonymous and file-backed parts (RssAnon, RssFile), bytes; null when the process is gone. */
export function rssParts(pid: number): { rss: number; anon: number; file: number } | null {
  try {
    const text = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)\\s+kB`).exec(text)?.[1] ?? NaN) * 1024;
    return { rss: kb("VmRSS"), anon: kb("RssAnon"), file: kb("RssFile") };
  } catch {
    return null;
  }
}

function listeningInodes(port: number): Set<string> {
  const hex = port.toString(16).toUpperCase().padStart(4, "0");
  const inodes = new Set<string>();
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10) continue;
      if (f[1].endsWith(`:${hex}`) && f[3] === "0A") inodes.add(f[9]);
    }
  }
  return inodes;
}

/** The pid whose open files include the socket listening on `port`. */
export function listeningPid(port: number): number | null {
  const inodes = listeningInodes(port);
  if (inodes.size === 0) return null;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${entry}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const link = readlinkSync(`/proc/${entry}/fd/${fd}`);
        const m = /^socket:\[(\d+)\]$/.exec(link);
        if (m && inodes.has(m[1])) return Number(entry);
      } catch {
        // fd closed meanwhile
      }
    }
  }
  return null;
}

export function machine() {
  const cpus = os.cpus();
  return {
    cores: cpus.length,
    cpuModel: cpus[0]?.model ?? "?",
    memoryBytes: os.totalmem(),
    kernel: `${os.type()} ${os.release()}`,
    node: process.version,
    hostname: os.hostname(),
  };
}

export function loadAvg(): [number, number, number] {
  const [a, b, c] = os.loadavg();
  return [round(a, 2), round(b, 2), round(c, 2)];
}

export function round(x: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
