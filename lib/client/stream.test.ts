import { describe, expect, it, vi } from "vitest";
import { snapshot, tick } from "../../test/support/fixtures";
import { LiveStore } from "./store";
import { applyEvent, connectStream, type EventSourceLike } from "./stream";

class FakeSource implements EventSourceLike {
  readyState = 0;
  onopen: ((ev: Event) => unknown) | null = null;
  onerror: ((ev: Event) => unknown) | null = null;
  listeners = new Map<string, ((ev: MessageEvent) => void)[]>();
  closed = false;
  constructor(readonly url: string) {}
  addEventListener(type: string, l: (ev: MessageEvent) => void) {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), l]);
  }
  close() {
    this.closed = true;
    this.readyState = 2;
  }
  emit(type: string, data: unknown) {
    for (const l of this.listeners.get(type) ?? []) l({ data: JSON.stringify(data) } as MessageEvent);
  }
}

function setup(lastTickSeq = 10) {
  const store = new LiveStore();
  store.load(snapshot({ ticks: [tick(lastTickSeq, 1000)] }));
  const sources: FakeSource[] = [];
  const onReset = vi.fn();
  const handle = connectStream("demo", store, {
    onReset,
    create: (url) => (sources.push(new FakeSource(url)), sources.at(-1)!),
    now: () => 42,
    retryMs: 10,
  });
  return { store, sources, onReset, handle };
}

describe("connectStream", () => {
  it("opens from the snapshot's last seq and goes live", () => {
    const { store, sources } = setup();
    expect(sources[0].url).toBe("/api/targets/demo/stream?since=10");
    expect(store.get("stream").state).toBe("connecting");
    sources[0].onopen?.(new Event("open"));
    expect(store.get("stream").state).toBe("live");
  });

  it("opens from the snapshot's lastSeq when the window's newest event is older", () => {
    const store = new LiveStore();
    store.load(snapshot({ ticks: [tick(10, 1000)], lastSeq: 12 }));
    const urls: string[] = [];
    connectStream("demo", store, { onReset: () => {}, create: (url) => (urls.push(url), new FakeSource(url)) });
    expect(urls).toEqual(["/api/targets/demo/stream?since=12"]);
  });

  it("parses ticks with the wire schema and drops what it has seen", () => {
    const { store, sources } = setup();
    sources[0].emit("tick", tick(10, 1000));
    sources[0].emit("tick", tick(11, 1100));
    expect(store.lastSeq).toBe(11);
    store.flush();
    expect(store.get("frame").ticks.map((t) => t.seq)).toEqual([10, 11]);
  });

  it("reports a payload that does not parse and does not apply it", () => {
    const { store, sources } = setup();
    const err = vi.spyOn(console, "error").mockImplementation(() => {});
    sources[0].emit("tick", { seq: "x" });
    expect(store.lastSeq).toBe(10);
    expect(store.get("stream").error).toMatch(/^a tick: seq/);
    err.mockRestore();
  });

  it("is reconnecting while the browser retries, and retries itself when the browser gives up", async () => {
    const { store, sources } = setup();
    sources[0].onopen?.(new Event("open"));
    sources[0].readyState = 0;
    sources[0].onerror?.(new Event("error"));
    expect(store.get("stream").state).toBe("reconnecting");
    sources[0].readyState = 2;
    sources[0].onerror?.(new Event("error"));
    await new Promise((r) => setTimeout(r, 30));
    expect(sources).toHaveLength(2);
    expect(sources[1].url).toBe("/api/targets/demo/stream?since=10");
  });

  it("closes and asks for a reload on reset, and applies nothing after it", () => {
    const { store, sources, onReset } = setup();
    sources[0].emit("reset", { lastSeq: 3 });
    expect(onReset).toHaveBeenCalledOnce();
    expect(sources[0].closed).toBe(true);
    expect(store.get("stream").state).toBe("reconnecting");
    sources[0].emit("tick", tick(11, 1100));
    expect(store.lastSeq).toBe(10);
  });

  it("stops on close", () => {
    const { sources, handle } = setup();
    handle.close();
    expect(sources[0].closed).toBe(true);
  });
});

describe("applyEvent", () => {
  it.each([
    ["tick", "{", "tick: not JSON"],
    ["outages", JSON.stringify({ outages: [{ from: 1 }] }), "outages: outages.0.to"],
  ] as const)("%s %s -> %s", (name, data, message) => expect(applyEvent(new LiveStore(), name, data)).toMatch(message));
});
