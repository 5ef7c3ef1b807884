import { afterEach, describe, expect, it, vi } from "vitest";
import { ioSample, target, tick } from "@/test/support/fixtures";
import type { IoSample, Tick } from "../../schemas/tick";
import { Feed } from "./feed";
import { MAX_QUEUED_BYTES, streamFor, type StreamSource } from "./stream";

/** A window of `n` ticks (seq 1..n) and io samples (every 10th seq). */
function source(n: number, extra: Partial<Tick> = {}): StreamSource & { ticks: Tick[]; io: IoSample[] } {
  const ticks = Array.from({ length: n }, (_, i) => tick(i + 1, 1000 + i * 100, extra));
  const io = ticks.filter((t) => t.seq % 10 === 0).map((t) => ioSample(t.seq, t.t, 1, 8192));
  return {
    feed: new Feed(),
    ticks,
    io,
    window: {
      get lastSeq() {
        return ticks.length;
      },
      ticksSince: (seq: number) => ticks.filter((t) => t.seq > seq),
      ioSince: (seq: number) => io.filter((s) => s.seq > seq),
    },
  };
}

/** Reads whatever the stream has queued, without waiting for more. */
async function drain(stream: ReadableStream<Uint8Array>): Promise<Uint8Array[]> {
  const reader = stream.getReader();
  const out: Uint8Array[] = [];
  for (;;) {
    const next = await Promise.race([reader.read(), new Promise<null>((r) => setTimeout(() => r(null), 5))]);
    if (next === null || next.done) break;
    out.push(next.value);
  }
  reader.releaseLock();
  return out;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("streamFor", () => {
  it("serialises each event once for all viewers, a new viewer's first payloads (state and replay) included", async () => {
    const src = source(20);
    src.feed.publish("target", target());
    const stringify = vi.spyOn(JSON, "stringify");
    const controllers = Array.from({ length: 50 }, () => new AbortController());
    const streams = controllers.map((c) => streamFor(src, 0, c.signal));
    // 20 ticks and 2 io samples replayed to 50 viewers: encoded once each.
    expect(stringify).toHaveBeenCalledTimes(22);
    for (let seq = 21; seq <= 30; seq++) src.feed.publish("tick", tick(seq, 1000 + seq * 100));
    src.feed.publish("target", target({ samples: 30 }));
    expect(stringify).toHaveBeenCalledTimes(22 + 11);
    expect(src.feed.viewers).toBe(50);

    const received = await Promise.all(streams.map(drain));
    // Every viewer got the very same encoded bytes, in the same order.
    for (const chunks of received) {
      expect(chunks).toHaveLength(received[0].length);
      chunks.forEach((c, i) => expect(c).toBe(received[0][i]));
    }
    for (const c of controllers) c.abort();
    expect(src.feed.viewers).toBe(0);
  });

  it("sends the state after the ticks a reconnect missed: the moment it quotes is a tick the page has", async () => {
    const src = source(20);
    src.feed.publish("target", target());
    const text = new TextDecoder().decode(Buffer.concat(await drain(streamFor(src, 15, new AbortController().signal))));
    const events = [...text.matchAll(/^event: (\S+)$/gm)].map((m) => m[1]);
    // Seq 16-20, and the io sample of seq 20; then the state.
    expect(events).toEqual(["tick", "tick", "tick", "tick", "tick", "io", "target"]);
  });

  it("a viewer that does not read is dropped once MAX_QUEUED_BYTES wait for it; what it holds stays bounded", async () => {
    const src = source(0);
    const release = vi.fn();
    const stream = streamFor(src, null, new AbortController().signal, release);
    expect(src.feed.viewers).toBe(1);
    const big = target({ lastError: "x".repeat(256 * 1024) });
    let published = 0;
    while (src.feed.viewers > 0 && published < 1000) {
      src.feed.publish("target", big);
      published++;
    }
    expect(src.feed.viewers).toBe(0);
    expect(release).toHaveBeenCalledTimes(1);
    expect(published * 256 * 1024).toBeLessThan(MAX_QUEUED_BYTES + 2 * 300 * 1024);
    const chunks = await drain(stream);
    const bytes = chunks.reduce((n, c) => n + c.byteLength, 0);
    expect(bytes).toBeLessThanOrEqual(MAX_QUEUED_BYTES + 300 * 1024);
    // Closed, not errored: the browser reconnects with its last id.
    const reader = stream.getReader();
    expect((await reader.read()).done).toBe(true);
  });

  it("a replay longer than the limit is sent up to it, then the stream ends (the browser resumes from its last id)", async () => {
    // About 2.7 kB a tick: 3,000 of them are twice the limit.
    const waits = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`wait-${i}`.padEnd(40, "x"), i]));
    const src = source(3000, { waits });
    const release = vi.fn();
    const stream = streamFor(src, 0, new AbortController().signal, release);
    expect(src.feed.viewers).toBe(0);
    expect(release).toHaveBeenCalledTimes(1);
    const text = new TextDecoder().decode(Buffer.concat(await drain(stream)));
    const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    expect(ids[0]).toBe(1);
    expect(ids.length).toBeGreaterThan(500);
    expect(ids.length).toBeLessThan(2500);
    // In order, no gap up to where it stopped.
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });

  it("an aborted request unsubscribes and releases its place once", () => {
    const src = source(5);
    const release = vi.fn();
    const controller = new AbortController();
    streamFor(src, 2, controller.signal, release);
    expect(src.feed.viewers).toBe(1);
    controller.abort();
    controller.abort();
    expect(src.feed.viewers).toBe(0);
    expect(release).toHaveBeenCalledTimes(1);
  });
});
