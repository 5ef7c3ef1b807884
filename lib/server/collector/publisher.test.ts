import { describe, expect, it } from "vitest";
import type { SampledBackend } from "../../schemas/rows";
import { activeBackend, target } from "../../../test/support/fixtures";
import { TargetWindow } from "../../model/window/window";
import { Feed } from "../payloads/feed";
import { Publisher } from "./publisher";

const scan = (pid = 10, start = 0): SampledBackend => activeBackend(pid, start);

/** The queries and findings events a viewer got, decoded. */
function viewer(feed: Feed): {
  event: string;
  data: {
    asOf: number;
    queries?: { id: string; lastSeen: number }[];
    runs?: { id: string; lastSeen: number }[];
    order?: string[];
    findings?: { evidence: Record<string, unknown> }[];
  };
}[] {
  const got: ReturnType<typeof viewer> = [];
  const decoder = new TextDecoder();
  feed.subscribe((bytes) => {
    const text = decoder.decode(bytes);
    const event = /^event: ([\w-]+)/m.exec(text)?.[1] ?? "";
    if (event.startsWith("queries") || event === "findings") got.push({ event, data: JSON.parse(/^data: (.*)$/m.exec(text)![1]) });
  });
  return got;
}

describe("Publisher", () => {
  // Issue 19: a finding said "2.1 s" beside its row's "2.8 s": findings were
  // not recomputed on ticks where an earlier change was still waiting to go out.
  it("sends the runs with the findings of the same tick, every time", () => {
    const window = new TargetWindow(600_000);
    const feed = new Feed();
    const source = { window, feed, redact: false, info: () => target({ status: "up" }) };
    const publisher = new Publisher(source);
    const got = viewer(feed);
    for (let t = 1_000; t <= 6_000; t += 100) {
      window.addActivity(t, [scan()], "unknown");
      publisher.afterTick(t);
    }
    const queries = got.filter((e) => e.event.startsWith("queries"));
    expect(queries.length).toBeGreaterThan(5);
    for (let i = 0; i < got.length; i += 2) {
      const [q, f] = [got[i], got[i + 1]];
      expect([q.event, f?.event]).toEqual([i === 0 ? "queries" : "queries-changes", "findings"]);
      expect(f.data.asOf).toBe(q.data.asOf);
      expect((q.data.queries ?? q.data.runs)?.[0].lastSeen).toBe(q.data.asOf);
      const elapsed = f.data.findings?.find((x) => "elapsedMs" in x.evidence)?.evidence.elapsedMs;
      if (elapsed !== undefined) expect(elapsed).toBe(q.data.asOf);
    }
  });

  // Issue 21: the whole list went out twice a second, 100 ended runs that
  // never change again included.
  it("sends what changed of the runs: a new viewer gets them all first", () => {
    const window = new TargetWindow(600_000);
    const feed = new Feed();
    const publisher = new Publisher({ window, feed, redact: false, info: () => target({ status: "up" }) });
    let t = 1_000;
    // 120 short scans that ended, then one that runs on.
    for (let pid = 100; pid < 220; pid++, t += 200) {
      window.addActivity(t, [scan(pid, t)], "unknown");
      window.addActivity(t + 100, [], "unknown");
    }
    const got = viewer(feed);
    publisher.everything(t);
    for (let i = 0; i < 40; i++, t += 100) {
      window.addActivity(t, [scan(10, 50_000)], "unknown");
      publisher.afterTick(t);
    }
    const [whole, ...rest] = got.filter((e) => e.event.startsWith("queries"));
    expect(whole.event).toBe("queries");
    expect(whole.data.queries).toHaveLength(100);
    const changes = rest.filter((e) => e.event === "queries-changes");
    expect(changes.length).toBe(rest.length);
    expect(changes.length).toBeGreaterThan(2);
    // The scan that began: itself and the new order once; then only itself.
    expect(changes[0].data.runs?.map((r) => r.id)).toEqual(["10:50000"]);
    expect(changes[0].data.order).toHaveLength(101);
    for (const c of changes.slice(1)) {
      expect(c.data.runs?.map((r) => r.id)).toEqual(["10:50000"]);
      expect(c.data.order).toBeUndefined();
    }
    // A viewer arriving now gets the state the changes were made to.
    const frames = feed.stateFrames().map((b) => new TextDecoder().decode(b));
    const state = JSON.parse(/^data: (.*)$/m.exec(frames.find((f) => f.startsWith("event: queries"))!)![1]);
    expect(state.asOf).toBe(changes.at(-1)!.data.asOf);
    expect(state.queries).toHaveLength(101);
  });
});
