// A running scan's time left as a range, from the positions it has been
// seen at over its whole run (pure). The middle blends the rate over the
// whole span seen with the recent one; the range widens by how much the
// rate has moved during the run and by how far the run's own earlier
// predictions strayed, and narrows with what is left to read.
import { formatDuration } from "../../format";

/** Blocks covered at a sample's time (ms). */
export interface Position {
  t: number;
  blocks: number;
}

export interface TimeLeft {
  /** ms left: the middle estimate, inside the range */
  midMs: number;
  lowMs: number;
  highMs: number;
}

/** Positions a trail keeps at least this far apart (the newest one always). */
export const TRAIL_STEP_MS = 250;
/** A trail longer than this halves its older points: a long scan keeps a bounded trail. */
export const TRAIL_MAX = 480;
/** No range before the run has been seen moving for this long. */
export const MIN_EVIDENCE_MS = 1000;
/** The recent rate is judged over this share of the span seen... */
export const RECENT_SHARE = 0.2;
/** ...and never over less than this (the positions jitter by the reads in flight). */
export const RECENT_MIN_MS = 500;
/**
 * Weight of the recent rate in the middle, against the whole span's (log
 * scale). Replayed over recorded cold scans, alone and four at once, the
 * recent rate predicted the rest better than the whole span's; all of it,
 * though, follows every stall and burst.
 */
export const RECENT_WEIGHT = 0.75;
/**
 * The rate's range as a log half-width: never narrower than this. Over 20%
 * of a scan, its rate moved by 10-30% on a loaded 2-core machine, alone or
 * not, with nothing earlier in the run to foretell it.
 */
export const MIN_SPREAD = 0.25;
/** Per-interval rates for the spread are judged over intervals this long. */
export const SPREAD_STEP_MS = 1000;
/**
 * Added to the half-width as the time left grows against the time seen (x
 * sqrt of their ratio): further ends are less known. Replayed over six
 * recorded runs of the integration test's scans, 0.1 held the end 3-8
 * points more often than 0.05, for ranges about a tenth wider.
 */
export const HORIZON_SPREAD = 0.1;
/**
 * The range reaches this much further below the middle than above: blocks
 * found in shared buffers (a neighbour scanning the same table just ahead)
 * are covered with no read to see, and faster, and a neighbour's end frees
 * the cores; both end a scan sooner than its reads said, never later.
 */
export const LOW_SIDE = 1.5;
/** Added either side: the sampling cadence, and the view read up to a sample after it was built. */
export const PAD_MS = 150;

/**
 * Appends a position, keeping the newest and thinning older ones (pure:
 * returns the new trail). A position that has not moved is not one: a scan
 * going through blocks already in shared buffers shows no read, and its
 * time left is counted down from the last position that moved.
 */
export function notePosition(trail: readonly Position[], p: Position): readonly Position[] {
  const last = trail[trail.length - 1];
  if (last && p.blocks <= last.blocks) return trail;
  const next = [...trail];
  // The newest slides forward until it is TRAIL_STEP_MS past the one before it, then stays.
  if (next.length >= 2 && next[next.length - 1].t - next[next.length - 2].t < TRAIL_STEP_MS) next[next.length - 1] = p;
  else next.push(p);
  if (next.length <= TRAIL_MAX) return next;
  // Every other point but the first and the newest: the spacing doubles, the span is kept.
  return next.filter((_, i) => i === 0 || i === next.length - 1 || i % 2 === 0);
}

/** Rates over consecutive intervals of about SPREAD_STEP_MS (a shorter tail dropped). */
export function intervalRates(trail: readonly Position[]): number[] {
  const rates: number[] = [];
  let from = trail[0];
  for (const p of trail) {
    if (p.t - from.t < SPREAD_STEP_MS) continue;
    rates.push((p.blocks - from.blocks) / (p.t - from.t));
    from = p;
  }
  return rates;
}

/** Spread of rates as a log half-width: half the distance between the lower and upper quartile of ln(rate). */
export function logSpread(rates: readonly number[], floor: number): number {
  if (rates.length < 2) return 0;
  const logs = rates.map((r) => Math.log(Math.max(r, floor))).sort((a, b) => a - b);
  const q = (f: number) => {
    const x = f * (logs.length - 1);
    const i = Math.floor(x);
    return logs[i] + (logs[Math.min(i + 1, logs.length - 1)] - logs[i]) * (x - i);
  };
  return (q(0.75) - q(0.25)) / 2;
}

/** The middle's rate from the trail up to and including index `k`: the whole span's and the recent one's, blended. */
function rateAt(trail: readonly Position[], k: number): { whole: number; recent: number; rate: number } {
  const first = trail[0];
  const last = trail[k];
  const span = last.t - first.t;
  const whole = (last.blocks - first.blocks) / span;
  const until = last.t - Math.max(RECENT_MIN_MS, RECENT_SHARE * span);
  let from = first;
  for (let i = k; i >= 0; i--) {
    if (trail[i].t > until) continue;
    from = trail[i];
    break;
  }
  // A rate near zero over the recent positions would put the end out of sight: a twentieth of the whole at least.
  const recent = Math.max((last.blocks - from.blocks) / (last.t - from.t), whole / 20);
  return { whole, recent, rate: Math.exp((1 - RECENT_WEIGHT) * Math.log(whole) + RECENT_WEIGHT * Math.log(recent)) };
}

/** Checkpoints of the run's own past a range is held against (spread evenly over the trail). */
export const BACKTEST_POINTS = 16;
/** ...each at least this far before the newest position. */
export const BACKTEST_MIN_AHEAD_MS = 500;

/**
 * How far this run's rate has already strayed from what it predicted: at
 * up to BACKTEST_POINTS earlier positions, the log ratio of the rate
 * actually kept from there to the newest position against the rate
 * predicted there. `faster` is the most it ran ahead, `slower` behind.
 */
export function strayed(trail: readonly Position[]): { faster: number; slower: number } {
  const last = trail[trail.length - 1];
  const step = Math.max(1, Math.floor(trail.length / BACKTEST_POINTS));
  let faster = 0;
  let slower = 0;
  for (let k = trail.length - 2; k >= 1; k -= step) {
    const at = trail[k];
    if (at.t - trail[0].t < MIN_EVIDENCE_MS || last.t - at.t < BACKTEST_MIN_AHEAD_MS || at.blocks <= trail[0].blocks) continue;
    const kept = (last.blocks - at.blocks) / (last.t - at.t);
    const e = Math.log(Math.max(kept, 1e-9) / rateAt(trail, k).rate);
    faster = Math.max(faster, e);
    slower = Math.max(slower, -e);
  }
  return { faster, slower };
}

/**
 * Time left at `now` to cover `left` blocks, from a trail of positions
 * (oldest first, the newest last, as notePosition keeps it): null before
 * MIN_EVIDENCE_MS of movement. Counted down from the newest position, so a
 * scan whose reads stop showing still nears its end.
 */
export function timeLeft(trail: readonly Position[], left: number, now: number): TimeLeft | null {
  if (trail.length < 2 || !(left >= 0)) return null;
  const first = trail[0];
  const last = trail[trail.length - 1];
  const span = last.t - first.t;
  if (span < MIN_EVIDENCE_MS || last.blocks <= first.blocks) return null;
  const { whole, recent, rate } = rateAt(trail, trail.length - 1);
  const ahead = left / rate;
  // How far the rate has moved (between intervals, between the whole span and now), plus how far ahead the end is...
  const horizon = HORIZON_SPREAD * Math.sqrt(ahead / span);
  const moved = Math.max(MIN_SPREAD, logSpread(intervalRates(trail), whole / 20), Math.abs(Math.log(recent / whole)) / 2) + horizon;
  // ...and how far the run's own past predictions strayed, either way.
  const past = strayed(trail);
  const below = Math.max(LOW_SIDE * moved, past.faster + horizon);
  const above = Math.max(moved, past.slower + horizon);
  const since = Math.max(0, now - last.t);
  const midMs = Math.max(0, ahead - since);
  return {
    midMs: Math.round(midMs),
    lowMs: Math.round(Math.max(0, ahead * Math.exp(-below) - PAD_MS - since)),
    highMs: Math.round(Math.max(midMs + PAD_MS, ahead * Math.exp(above) + PAD_MS - since)),
  };
}

/** A range this much wider than its middle is shown as a range; a narrower one, as one figure. */
export const RANGE_SHOWN_SHARE = 0.1;

/**
 * "6-9 s left" while the range is wide, "about 4.0 s left" once it is
 * narrow: the one text of a run's time left, the finding's and the row's.
 */
export function formatTimeLeft(run: { etaMs: number | null; etaRangeMs: readonly [number, number] | null }): string | null {
  if (run.etaMs === null) return null;
  const range = run.etaRangeMs;
  if (!range || range[1] - range[0] <= RANGE_SHOWN_SHARE * Math.max(run.etaMs, 1)) return `about ${formatDuration(run.etaMs)} left`;
  return `${rangeText(range[0], range[1])} left`;
}

/** 65 s -> "1:05": minutes and seconds, as a timer shows them. */
const clockOf = (s: number) => `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;

/** "6-9 s" (whole seconds, outward), "under 1 s", "1:05-1:50 min" past a minute (one glance, not six words). */
function rangeText(low: number, high: number): string {
  if (high <= 1000) return "under 1 s";
  if (high < 60_000) return `${Math.floor(low / 1000)}-${Math.ceil(high / 1000)} s`;
  return `${clockOf(Math.floor(low / 1000))}-${clockOf(Math.ceil(high / 1000))} min`;
}
