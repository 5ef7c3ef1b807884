"use client";
// Where a chart is on the page: its width in pixels (a series gets at most
// one point per pixel column of the plot, docs/CHARTS.md rule 1) and whether
// it is on screen (a chart scrolled out of view is not redrawn; it catches up
// when it comes back).
import { useCallback, useEffect, useState } from "react";

export interface ChartBox {
  /** put on the element that holds the chart */
  ref: (el: HTMLElement | null) => void;
  /** the element's width in px; null until measured (the server, tests) */
  width: number | null;
  visible: boolean;
}

/** Drawn a little before it scrolls in, so it is never seen stale. */
const NEAR_SCREEN = "200px";

export function useChartBox(): ChartBox {
  const [el, setEl] = useState<HTMLElement | null>(null);
  const [width, setWidth] = useState<number | null>(null);
  const [visible, setVisible] = useState(true);
  const ref = useCallback((node: HTMLElement | null) => setEl(node), []);
  useEffect(() => {
    if (!el) return;
    const observers: { disconnect(): void }[] = [];
    if (typeof ResizeObserver !== "undefined") {
      const resize = new ResizeObserver(([entry]) => setWidth(Math.round(entry.contentRect.width)));
      resize.observe(el);
      observers.push(resize);
    }
    if (typeof IntersectionObserver !== "undefined") {
      const seen = new IntersectionObserver(([entry]) => setVisible(entry.isIntersecting), { rootMargin: NEAR_SCREEN });
      seen.observe(el);
      observers.push(seen);
    }
    return () => observers.forEach((o) => o.disconnect());
  }, [el]);
  return { ref, width, visible };
}
