import "server-only";
import type { WatchCost } from "../../schemas/target";
import { formatDuration } from "../../format";
import { AIOS_FLOOR_MS, BUDGET_WINDOW_MS, HEADROOM, SAMPLING_SHARE, budgetAffording, type Budget } from "./budget";
import { RATE_SPAN_MS, round, type CostMeter } from "./cost";

const fmt = (ms: number) => (ms < 0.001 ? "under 0.001" : ms < 0.1 ? ms.toFixed(3) : ms.toFixed(2));

export interface CostFacts {
  now: number;
  /** when the collector started (rates over less than 10 s right after) */
  since: number;
  cost: CostMeter;
  budget: Budget;
  /** the sampling interval asked for, and the one in force */
  asked: number;
  interval: number;
  aios: { intervalMs: number | null; skipped: number; starved: boolean; retryMs: number };
  /** pg_aios has been read at least once */
  aiosRead: boolean;
  /** the wait-event sample's share of the budget (Budget.samplingShare), and what the other reads took of it */
  samplingShare: number;
  othersMsPerSecond: number | null;
}

const FIRST_READS = "inflight's first reads of this server";

/** What watching costs now, and why a cadence is slower than asked (the target payload's cost). */
export function watchCost(f: CostFacts): WatchCost {
  const budget = f.budget.msPerSecond;
  const aiosMs = f.cost.estimate("aios", f.now);
  const sampleMs = f.cost.estimate("activity", f.now);
  const msPerSecond = round(f.cost.msPerSecond(f.now, f.since));
  const floorEvery = `one every ${AIOS_FLOOR_MS / 1000} s at least`;
  // Right after the start the window holds the first reads, charged before their exact cost is known.
  const starting = f.now - f.since < BUDGET_WINDOW_MS;
  const notes: string[] = [];
  if (f.interval > f.asked) {
    const others =
      f.othersMsPerSecond !== null && f.othersMsPerSecond >= 0.01 ? `, and the other reads ${fmt(f.othersMsPerSecond)} ms/s` : "";
    const why =
      f.samplingShare < SAMPLING_SHARE
        ? `the sample costs ${fmt(sampleMs)} ms here, and pg_aios ${fmt(aiosMs)} ms a read, ${floorEvery}${others}`
        : `the sample alone costs ${fmt(sampleMs)} ms here`;
    notes.push(`wait events every ${f.interval} ms, not ${f.asked}: ${why}`);
  }
  if (f.aios.starved) {
    const enough = budgetAffording((sampleMs * 1000) / f.asked, aiosMs);
    notes.push(
      `pg_aios not read for over ${AIOS_FLOOR_MS / 1000} s while backends run: a read costs ${fmt(aiosMs)} ms here, more than the budget leaves beside the wait events (INFLIGHT_BUDGET=${enough} affords ${floorEvery}); it is tried again ${formatDuration(f.aios.retryMs)} after the last read (twice as long each time it still does not fit, up to 5 min)`,
    );
  } else if (f.aios.skipped > 0 && (f.aios.intervalMs === null || f.aios.intervalMs > f.asked * 1.5)) {
    // Put off now and then but read at about the asked cadence: nothing worth a note. Why it is
    // put off: its cost, where what the samples leave of the budget pays for a read about as
    // often as it is read; else it is cheap and the window is spent all the same (inflight's first
    // reads of a server, charged at their round trips before their exact costs are known).
    const left = Math.max(0.01, HEADROOM * budget - (sampleMs * 1000) / f.interval);
    const costly = (aiosMs / left) * 1000 >= (f.aios.intervalMs ?? RATE_SPAN_MS) / 2;
    const spent = f.budget.spentInWindow(f.now);
    const why = costly
      ? `it costs ${fmt(aiosMs)} ms a read on this server (about max_connections x io_max_concurrency handle slots)`
      : spent + aiosMs > HEADROOM * f.budget.windowMs
        ? `it costs ${fmt(aiosMs)} ms a read, but ${Math.round(spent)} of the last ${BUDGET_WINDOW_MS / 1000} s's ${Math.round(f.budget.windowMs)} ms are spent`
        : `it costs ${fmt(aiosMs)} ms a read, but the last second's budget went to ${starting ? FIRST_READS : "other reads"}`;
    notes.push(
      `pg_aios read ${f.aios.intervalMs !== null ? `every ${f.aios.intervalMs} ms` : "rarely"} while backends run, not every sample: ${why}`,
    );
  }
  // The header says whether it is over the budget, and over what span; the note says why.
  if (msPerSecond > budget && !notes.length) {
    notes.push(
      starting
        ? `${FIRST_READS}: they are charged at their round trips (parse, plan and the network) until pg_stat_statements gives their cost`
        : "a read cost more than it was charged; what can wait is put off until the budget is repaid",
    );
  }
  return {
    budgetMsPerSecond: budget,
    msPerSecond,
    spanS: Math.round(f.cost.span(f.now, f.since) / 1000),
    statements: f.cost.statements(f.now, f.since),
    aios: { msPerRead: f.aiosRead ? round(aiosMs) : null, intervalMs: f.aios.intervalMs, skipped: f.aios.skipped },
    note: notes.length ? `${notes.join("; ")}.` : null,
  };
}
