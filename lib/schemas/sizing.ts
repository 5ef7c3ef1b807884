// The sizing view (issue 41): per lever, over a range of this server's
// history, a verdict, the value to set and how it applies, the figures that
// say so, the statements it would help and the labs that measured it. The
// wire contract of GET /api/targets/{id}/sizing.
import { z } from "zod";
import { SETTING_APPLIES, SIZING_LEVERS, SIZING_VERDICTS } from "./enums";

/** One figure behind a verdict, in words, with the time it covers. */
export const SizingFigure = z.object({
  /** "io workers full in 41% of the 12 min in which backends read through them" */
  text: z.string(),
  /** the figure itself (a share 0..1, a count, ms); null when the words are the figure */
  value: z.number().nullable(),
  /** ms of the range the figure covers (seconds with reads, ...); null when it is not a span */
  spanMs: z.number().nullable(),
});
export type SizingFigure = z.infer<typeof SizingFigure>;

/** A statement a lever would help: its runs in the range. */
export const SizingStatement = z.object({
  queryId: z.string().nullable(),
  query: z.string(),
  runs: z.number(),
  /** the runs' time summed, ms */
  totalMs: z.number(),
});
export type SizingStatement = z.infer<typeof SizingStatement>;

/** A lab result about this lever, in one line: "measured here: io_workers 1 -> 3: 5.5 s -> 4.4 s, 3 rounds each, 4 sessions". */
export const SizingLab = z.object({
  at: z.number(),
  text: z.string(),
});
export type SizingLab = z.infer<typeof SizingLab>;

export const SizingLeverVerdict = z.object({
  lever: z.enum(SIZING_LEVERS),
  verdict: z.enum(SIZING_VERDICTS),
  /** the value in force at the end of the range; null when not known (or the server has no such setting) */
  now: z.string().nullable(),
  /** the value to set; null unless raise, lower or change */
  value: z.string().nullable(),
  /** how the value takes effect; null without one */
  applies: z.enum(SETTING_APPLIES).nullable(),
  /** the verdict in one line: "raise io_workers 1 -> 4 (a reload applies it)" */
  headline: z.string(),
  /** why, in one line: the rule the value comes from, or what is missing */
  reason: z.string(),
  figures: z.array(SizingFigure),
  statements: z.array(SizingStatement),
  lab: z.array(SizingLab),
});
export type SizingLeverVerdict = z.infer<typeof SizingLeverVerdict>;

export const SizingResponse = z.object({
  target: z.string(),
  from: z.number(),
  to: z.number(),
  /** history: the history on disk; live: the window in memory (the history is off) */
  source: z.enum(["history", "live"]),
  /** seconds of the range with a sample */
  sampledMs: z.number(),
  levers: z.array(SizingLeverVerdict),
  /** what the reader should know first (the history is off, the range holds nothing, ...) */
  note: z.string().nullable(),
});
export type SizingResponse = z.infer<typeof SizingResponse>;
