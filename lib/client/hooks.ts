// React bindings of the live store: the snapshot via react-query, the stream,
// and one subscription per channel so that a figure re-renders alone.
import { useQuery } from "@tanstack/react-query";
import { createContext, startTransition, useCallback, useContext, useEffect, useRef, useState, useSyncExternalStore } from "react";
import { WindowSnapshot } from "@/lib/schemas/window";
import { getJson, targetPath } from "./api";
import type { Frame } from "@/lib/view/frame";
import { LiveStore, type Channel, type ChannelValue } from "./store";
import { connectStream } from "./stream";

/** Charts redraw at 2 Hz whatever the tick rate (docs/CHARTS.md, rule 2). */
export const FRAME_MS = 500;
const SNAPSHOT_RETRY_MS = 5000;

export interface TargetLive {
  store: LiveStore;
  /** the snapshot: loading until the first one arrives */
  status: "loading" | "ready" | "error";
  error: string | null;
  reload: () => void;
}

export const windowQueryKey = (id: string) => ["target-window", id] as const;

/**
 * Loads the window snapshot, then follows the stream from its last seq. The
 * live data stays in the returned store; read it with useLive(store, channel).
 * Mount one per target id (key the component by id).
 */
export function useTargetLive(id: string): TargetLive {
  const [store] = useState(() => new LiveStore());
  const snapshot = useQuery({
    queryKey: windowQueryKey(id),
    queryFn: async ({ signal }) => (await getJson(targetPath(id) + "/window", WindowSnapshot, signal)).data,
    staleTime: Infinity,
    gcTime: 0,
    // 9,000 ticks: comparing them with the previous snapshot is wasted work.
    structuralSharing: false,
    refetchOnWindowFocus: false,
    refetchOnReconnect: false,
    retry: 5,
    retryDelay: (n) => Math.min(8000, 500 * 2 ** n),
  });
  const { data, refetch } = snapshot;

  useEffect(() => {
    if (!data) return;
    store.load(data);
    const stream = connectStream(id, store, { onReset: () => void refetch() });
    // A hidden tab draws nothing: the store keeps collecting (bounded) and the
    // next flush after it shows again carries everything.
    const timer = setInterval(() => document.visibilityState !== "hidden" && store.flush(), FRAME_MS);
    return () => {
      stream.close();
      clearInterval(timer);
    };
  }, [id, data, store, refetch]);

  // react-query gave up (inflight down for a while): keep trying, slowly, so
  // the page comes back by itself when the server does.
  useEffect(() => {
    if (!snapshot.isError) return;
    const timer = setTimeout(() => void refetch(), SNAPSHOT_RETRY_MS);
    return () => clearTimeout(timer);
  }, [snapshot.isError, snapshot.errorUpdatedAt, refetch]);

  return {
    store,
    status: data ? "ready" : snapshot.isError ? "error" : "loading",
    error: snapshot.error ? snapshot.error.message : null,
    reload: () => void refetch(),
  };
}

export function useLive<C extends Channel>(store: LiveStore, channel: C): ChannelValue<C> {
  const subscribe = useCallback((cb: () => void) => store.subscribe(channel, cb), [store, channel]);
  const get = useCallback(() => store.get(channel), [store, channel]);
  return useSyncExternalStore(subscribe, get, get);
}

export const LiveContext = createContext<LiveStore | null>(null);

export function useLiveStore(): LiveStore {
  const store = useContext(LiveContext);
  if (!store) throw new Error("a live hook outside a LiveContext");
  return store;
}

/** A channel of the target page's store (inside <LiveContext>). */
export function useChannel<C extends Channel>(channel: C): ChannelValue<C> {
  return useLive(useLiveStore(), channel);
}

/**
 * One figure of a channel (`select` returns a primitive, or something that
 * keeps its identity): the component re-renders when that figure changes, not
 * on every event of the channel. A `target` event comes every second; a chart
 * that reads only its window and cadence from it is not redrawn by it.
 */
export function useChannelSelect<C extends Channel, T>(channel: C, select: (value: ChannelValue<C>) => T): T {
  const store = useLiveStore();
  const subscribe = useCallback((cb: () => void) => store.subscribe(channel, cb), [store, channel]);
  const get = () => select(store.get(channel));
  return useSyncExternalStore(subscribe, get, get);
}

/** Between the redraws of two charts of one frame, ms (5 slots fit in FRAME_MS). */
export const STAGGER_MS = 80;

/** What redraws in each slot; slot 3 is the throughput panel's second plot (useLater). */
const SLOT_NAMES = ["in-flight", "io workers", "read throughput", "read size", "wait events", "run timeline"];

/**
 * A User Timing mark where a chart's redraw begins: a DevTools trace (and
 * `npm run bench`'s) names the chart behind each long task by it.
 */
export function markRedraw(slot: number): void {
  const name = `inflight redraw: ${SLOT_NAMES[slot] ?? `slot ${slot}`}`;
  performance.mark(name);
  performance.clearMarks(name); // the trace keeps it; the page need not
}

/**
 * The chart frame, handed over `slot * STAGGER_MS` after it is published, at
 * the next animation frame and as a transition: each chart redraws in a task of its own rather than all in
 * one long task, and a click is not queued behind a redraw. `paused`: not
 * followed (the caller shows something else, or the chart is off screen); it
 * catches up when resumed. `everyMs`: no two redraws closer than this (a
 * 15-minute window moves by a pixel column a second: redrawing it twice a
 * second shows nothing new); the newest frame is always drawn in the end.
 */
export function useStaggeredFrame(slot: number, paused = false, everyMs = FRAME_MS): Frame {
  const store = useLiveStore();
  const [frame, setFrame] = useState(() => store.get("frame"));
  useEffect(() => {
    if (paused) return;
    let timer: ReturnType<typeof setTimeout> | null = null;
    let drawAt: number | null = null;
    let lastAt = -Infinity;
    const apply = () => {
      timer = null;
      lastAt = performance.now();
      // At the start of an animation frame: the redraw is painted with that frame, not in between.
      drawAt ??= requestAnimationFrame(() => {
        drawAt = null;
        markRedraw(slot);
        startTransition(() => setFrame(store.get("frame")));
      });
    };
    const unsubscribe = store.subscribe("frame", () => {
      timer ??= setTimeout(apply, Math.max(slot * STAGGER_MS, lastAt + everyMs - performance.now()));
    });
    apply(); // a frame published before this subscribed
    return () => {
      unsubscribe();
      if (timer) clearTimeout(timer);
      if (drawAt !== null) cancelAnimationFrame(drawAt);
    };
  }, [store, slot, paused, everyMs]);
  return frame;
}

/**
 * `value`, handed over `delayMs` later, in a task of its own and as a
 * transition: the second chart of a panel redraws after the first, not in
 * the same task (two recharts redraws in one task were one long task). Never
 * starved: a value that changes again meanwhile goes out with that timer.
 * `slot`: the redraw's name in a trace (markRedraw).
 */
export function useLater<T>(value: T, delayMs = STAGGER_MS, slot?: number): T {
  const [later, setLater] = useState(value);
  const pending = useRef(value);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => {
    pending.current = value;
    timer.current ??= setTimeout(() => {
      timer.current = null;
      if (slot !== undefined) markRedraw(slot);
      startTransition(() => setLater(pending.current));
    }, delayMs);
  }, [value, delayMs, slot]);
  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );
  return later;
}

/**
 * `value`, or the earlier one while `same` says nothing changed: a chart
 * handed the same array does not redraw (memo compares by reference).
 */
export function useStable<T>(value: T, same: (a: T, b: T) => boolean): T {
  const kept = useRef(value);
  if (kept.current !== value && !same(kept.current, value)) kept.current = value;
  return kept.current;
}

/**
 * The page's one clock (see components/ui/page-clock.tsx): every "12 s ago"
 * and "for 31 s" on a page is read against the same now, so one moment
 * never reads as "24 s ago" in one place and "23 s ago" in another.
 */
export const PageClockContext = createContext<number | null>(null);

export function usePageNow(): number | null {
  return useContext(PageClockContext);
}

/**
 * The browser's clock, refreshed every `everyMs`, for "12 s ago" texts. Null
 * on the server and in the first client render, so that server HTML (another
 * clock, maybe another time zone) never disagrees with hydration.
 */
export function useNow(everyMs = 1000): number | null {
  const [now, setNow] = useState<number | null>(null);
  useEffect(() => {
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}
