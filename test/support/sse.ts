// Reads a Server-Sent Events stream from the real server, event by event,
// over its own socket (no keep-alive pool: closing it closes the socket).
import http from "node:http";
import { parseEvents } from "../../lib/server/payloads/sse";

export interface SseEvent {
  event: string;
  id: string | null;
  data: string;
  /** when its bytes reached the test (Date.now()): the test's own clock, not the payload's */
  at: number;
}

export interface SseClient {
  status: number;
  headers: http.IncomingHttpHeaders;
  events: SseEvent[];
  /** the raw text received so far */
  text(): string;
  /** resolves with the first event (from the start) matching, or rejects after timeoutMs */
  waitFor(pred: (e: SseEvent, all: SseEvent[]) => boolean, timeoutMs?: number): Promise<SseEvent>;
  ended: Promise<void>;
  close(): void;
}

/** `from`: the local address to connect from (any 127.x.y.z: another client to the server). */
export function openSse(url: string, headers: Record<string, string> = {}, from?: string): Promise<SseClient> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false, localAddress: from, headers: { Accept: "text/event-stream", ...headers } }, (res) => {
      let raw = "";
      let pending = "";
      const events: SseEvent[] = [];
      const waiters = new Set<() => void>();
      let endedResolve: () => void;
      const ended = new Promise<void>((r) => (endedResolve = r));
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        raw += chunk;
        pending += chunk;
        const cut = pending.lastIndexOf("\n\n");
        if (cut === -1) return;
        const at = Date.now();
        events.push(...parseEvents(pending.slice(0, cut + 2)).map((e) => ({ ...e, at })));
        pending = pending.slice(cut + 2);
        for (const w of waiters) w();
      });
      const finish = () => {
        endedResolve();
        for (const w of waiters) w();
      };
      res.on("end", finish).on("close", finish).on("error", finish);
      let done = false;
      void ended.then(() => (done = true));
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        events,
        text: () => raw,
        ended,
        close: () => req.destroy(),
        waitFor(pred, timeoutMs = 10_000) {
          return new Promise((ok, fail) => {
            const check = () => {
              const hit = events.find((e) => pred(e, events));
              if (hit) return settle(() => ok(hit));
              if (done) return settle(() => fail(new Error(`stream ended before the event came (${events.length} events)`)));
            };
            const timer = setTimeout(
              () => settle(() => fail(new Error(`no matching event in ${timeoutMs} ms (${events.length} events)`))),
              timeoutMs,
            );
            const settle = (then: () => void) => {
              clearTimeout(timer);
              waiters.delete(check);
              then();
            };
            waiters.add(check);
            check();
          });
        },
      });
    });
    req.on("error", reject);
  });
}

/**
 * The samples taken in their slots (tick events not marked extra: a burst
 * between the slots when a statement starts is not one) that reached the
 * test in [from, to) by its own clock: the cadence as a viewer gets it.
 */
export function slotTicksArrived(events: readonly SseEvent[], from: number, to: number): number {
  return events.filter((e) => e.event === "tick" && e.at >= from && e.at < to && !(JSON.parse(e.data) as { extra?: true }).extra).length;
}
