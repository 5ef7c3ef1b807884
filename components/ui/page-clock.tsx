"use client";
import type { ReactNode } from "react";
import { PageClockContext, useNow } from "@/lib/client/hooks";

/**
 * One clock for a page, ticking once a second: only the texts that read it
 * (usePageNow) re-render, not the charts around them.
 */
export function PageClock({ children }: { children: ReactNode }) {
  const now = useNow(1000);
  return <PageClockContext value={now}>{children}</PageClockContext>;
}
