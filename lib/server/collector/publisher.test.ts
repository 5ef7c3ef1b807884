import { describe, expect, it } from "vitest";
import type { SampledBackend } from "../../schemas/rows";
import { target } from "../../../test/support/fixtures";
import { TargetWindow } from "../../window/window";
import { Feed } from "../payloads/feed";
import { Publisher } from "./publisher";

const scan = (): SampledBackend => ({ pid: 10, leader_pid: null, backend_type: "client backend", state: "active", wait_event_type: "IO", wait_event: "AioIoCompletion", query_id: "7", query_start_ms: 0, datname: "db", usename: "u", query: "select count(*) from t", handles: null });

/** The queries and findings events a viewer got, decoded. */
function viewer(feed: Feed): { event: string; data: { asOf: number; queries?: { lastSeen: number }[]; findings?: { evidence: Record<string, unknown> }[] } }[] {
  const got: ReturnType<typeof viewer> = [];
  const decoder = new TextDecoder();
  feed.subscribe((bytes) => {
    const text = decoder.decode(bytes);
    const event = /^event: (\w+)/m.exec(text)?.[1] ?? "";
    if (event === "queries" || event === "findings") got.push({ event, data: JSON.parse(/^data: (.*)$/m.exec(text)![1]) });
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
    const publisher = new Publisher(source, () => {});
    const got = viewer(feed);
    for (let t = 1_000; t <= 6_000; t += 100) {
      window.addActivity(t, [scan()], "unknown");
      publisher.afterTick(t);
    }
    const queries = got.filter((e) => e.event === "queries");
    expect(queries.length).toBeGreaterThan(5);
    for (let i = 0; i < got.length; i += 2) {
      const [q, f] = [got[i], got[i + 1]];
      expect([q.event, f?.event]).toEqual(["queries", "findings"]);
      expect(f.data.asOf).toBe(q.data.asOf);
      expect(q.data.queries?.[0].lastSeen).toBe(q.data.asOf);
      const elapsed = f.data.findings?.find((x) => "elapsedMs" in x.evidence)?.evidence.elapsedMs;
      if (elapsed !== undefined) expect(elapsed).toBe(q.data.asOf);
    }
  });
});
