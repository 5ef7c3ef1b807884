import { useEffect, useState, type Dispatch, type SetStateAction } from "react";
import { HistoryResponse } from "@/lib/schemas/history";
import { needsHistory, historyUrl, withHistory } from "@/lib/view/history";
import type { FrozenView } from "@/lib/view/view";
import { getJson } from "./api";

export type HistoryLoad = { state: "idle" | "loading" } | { state: "error"; message: string };

/**
 * A frozen range that starts before the window is read from disk once, and
 * the frozen view gets its seconds, runs and findings; a deep link to a past
 * range (after an inflight restart too) is opened the same way.
 */
export function useHistory(id: string, frozen: FrozenView | null, setFrozen: Dispatch<SetStateAction<FrozenView | null>>): HistoryLoad {
  const [load, setLoad] = useState<HistoryLoad>({ state: "idle" });
  const from = frozen?.from;
  const to = frozen?.to;
  const needed = frozen !== null && frozen.history === undefined && needsHistory(frozen.frame, frozen);
  useEffect(() => {
    if (!needed || from === undefined || to === undefined) return;
    const controller = new AbortController();
    const same = (f: FrozenView | null) => f !== null && f.from === from && f.to === to;
    setLoad({ state: "loading" });
    getJson(historyUrl(id, { from, to }), HistoryResponse, controller.signal)
      .then(({ data }) => {
        setFrozen((f) => (same(f) ? withHistory(f!, data) : f));
        setLoad({ state: "idle" });
      })
      .catch((err: Error) => {
        if (!controller.signal.aborted) setLoad({ state: "error", message: err.message });
      });
    return () => controller.abort();
  }, [id, from, to, needed, setFrozen]);
  return frozen === null ? { state: "idle" } : load;
}
