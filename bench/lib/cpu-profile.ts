// A CPU profile of the page (the DevTools protocol's sampling profiler): self
// time by function, to see what keeps the main thread busy.
import type { CDPSession } from "@playwright/test";

export interface ProfileEntry {
  selfMs: number;
  fn: string;
  where: string;
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
}

/** Self time by function (CDP Profiler), top 25; to see what keeps the main thread busy. */
export async function cpuProfile(cdp: CDPSession, seconds: number): Promise<ProfileEntry[]> {
  await cdp.send("Profiler.enable");
  await cdp.send("Profiler.setSamplingInterval", { interval: 200 });
  await cdp.send("Profiler.start");
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const { profile } = (await cdp.send("Profiler.stop")) as unknown as {
    profile: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };
  };
  const byNode = new Map<number, ProfileNode>(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, ProfileEntry>();
  profile.samples.forEach((id, i) => {
    const node = byNode.get(id);
    if (!node) return;
    const f = node.callFrame;
    const file = f.url ? f.url.split("/").pop() : "";
    const key = `${f.functionName}|${file}:${f.lineNumber}:${f.columnNumber}`;
    const e = self.get(key) ?? {
      selfMs: 0,
      fn: f.functionName || "(anonymous)",
      where: file ? `${file}:${f.lineNumber + 1}:${f.columnNumber + 1}` : "",
    };
    e.selfMs += (profile.timeDeltas[i] ?? 0) / 1000;
    self.set(key, e);
  });
  return [...self.values()]
    .sort((a, b) => b.selfMs - a.selfMs)
    .slice(0, 25)
    .map((e) => ({ ...e, selfMs: Math.round(e.selfMs) }));
}
