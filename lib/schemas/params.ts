import { z } from "zod";
import { parseDuration } from "../duration";
import { LAB_CONCURRENCY, LEVERS, leverValuesProblem } from "./levers";
import { IO_METHODS, IO_WORKERS_RANGE, LAB_LEVERS, LAB_QUERIES } from "./enums";

// Parameters of the HTTP routes, parsed with zod (shared with the browser,
// which builds the same URLs).

export const TargetId = z.string().regex(/^[a-z0-9][a-z0-9_.-]{0,62}$/, "must be a target id such as demo");
export const TargetParams = z.object({ id: TargetId });

const seq = z
  .string()
  .max(16, "is too long")
  .regex(/^\d+$/, "must be a whole number")
  .transform(Number)
  .refine(Number.isSafeInteger, "is too large");
const ms = z
  .string()
  .max(16, "is too long")
  .regex(/^\d+$/, "must be milliseconds since the epoch")
  .transform(Number)
  .refine(Number.isSafeInteger, "is too large");

export const WindowQuery = z
  .strictObject({ since: seq.optional(), from: ms.optional(), to: ms.optional() })
  .refine((q) => q.from === undefined || q.to === undefined || q.from <= q.to, { message: "must not be before from", path: ["to"] });

export const EXPORT_FORMATS = ["json", "csv"] as const;
export const ExportQuery = z
  .strictObject({ format: z.enum(EXPORT_FORMATS).default("json"), from: ms.optional(), to: ms.optional() })
  .refine((q) => q.from === undefined || q.to === undefined || q.from <= q.to, { message: "must not be before from", path: ["to"] });

export const StreamQuery = z.strictObject({ since: seq.optional() });
/** A route that takes no query parameters: any one is named as unknown. */
export const NoQuery = z.strictObject({});
export const LastEventId = seq;

export const DemoRestartBody = z.strictObject({
  io_method: z.enum(IO_METHODS).optional(),
  /** 18 */
  io_workers: z.number().int().min(IO_WORKERS_RANGE.min).max(IO_WORKERS_RANGE.max).optional(),
  /** 19's pool */
  io_min_workers: z.number().int().min(IO_WORKERS_RANGE.min).max(IO_WORKERS_RANGE.max).optional(),
  io_max_workers: z.number().int().min(IO_WORKERS_RANGE.min).max(IO_WORKERS_RANGE.max).optional(),
});
export type DemoRestartBody = z.infer<typeof DemoRestartBody>;

const MINUTE = 60_000;
/** A side of a comparison: "1h", "30m", "2d"; per-minute history, so at least a minute. */
const span = z
  .string()
  .max(16, "is too long")
  .transform((text, ctx) => {
    const ms = parseDuration(text);
    if (ms === null) {
      ctx.addIssue({ code: "custom", message: "must be a duration such as 1h, 30m or 2d" });
      return z.NEVER;
    }
    return ms;
  })
  .refine((ms) => ms >= MINUTE && ms <= 30 * 24 * 60 * MINUTE, "must be between 1m and 30d");

/** GET /api/targets/{id}/compare: around `at` (default: the last restart), `before` and `after` it (default 1h each). */
export const CompareQuery = z.strictObject({
  at: ms.optional(),
  before: span.default(60 * MINUTE),
  after: span.default(60 * MINUTE),
  /** a history kept from before inflight told servers apart: "name:<the target's id>" (the compare route checks it is this target's) */
  history: z.string().max(100).optional(),
});
export type CompareQuery = z.infer<typeof CompareQuery>;

/** Runs per io_method a lab may ask for. */
export const LAB_RUNS = { min: 1, max: 20, default: 5 } as const;

/** POST /api/targets/demo/lab: what to run, which lever and its values (io_method: methods), how many rounds, how many sessions at once. */
export const LabStartBody = z
  .strictObject({
    query: z.enum(LAB_QUERIES),
    /** the statement for query = custom: one read-only SELECT */
    sql: z.string().trim().min(1, "must not be empty").max(10_000, "is too long (10,000 characters at most)").optional(),
    /** the setting compared (default io_method) */
    lever: z.enum(LAB_LEVERS).default("io_method"),
    /** io_method's values (the lever io_method only; values says the same) */
    methods: z
      .array(z.enum(IO_METHODS))
      .min(1, "needs at least one io_method")
      .refine((m) => new Set(m).size === m.length, "names an io_method twice")
      .optional(),
    /** the lever's values, in order: the first is the baseline */
    values: z
      .array(z.union([z.string().max(32, "is too long"), z.number()]).transform(String))
      .max(8, "has more than 8 values")
      .optional(),
    runs: z.number().int("must be a whole number").min(LAB_RUNS.min).max(LAB_RUNS.max).default(LAB_RUNS.default),
    /** sessions running the statement at once (default: 4 for the io worker levers, else 1) */
    concurrency: z.number().int("must be a whole number").min(LAB_CONCURRENCY.min).max(LAB_CONCURRENCY.max).optional(),
  })
  .refine((b) => b.query !== "custom" || b.sql !== undefined, { message: "is needed for query = custom", path: ["sql"] })
  .refine((b) => b.query === "custom" || b.sql === undefined, { message: "is only for query = custom", path: ["sql"] })
  .refine((b) => b.lever === "io_method" || b.methods === undefined, {
    message: "is only for lever = io_method (give values)",
    path: ["methods"],
  })
  .refine((b) => b.methods === undefined || b.values === undefined, { message: "give either methods or values", path: ["values"] })
  .refine((b) => b.methods !== undefined || b.values !== undefined, {
    message: "is needed: the lever's values to compare",
    path: ["values"],
  })
  .superRefine((b, ctx) => {
    const problem = b.values === undefined ? null : leverValuesProblem(b.lever, b.values);
    if (problem) ctx.addIssue({ code: "custom", message: problem, path: ["values"] });
  })
  .transform((b) => ({ ...b, values: b.values ?? b.methods ?? [], concurrency: b.concurrency ?? LEVERS[b.lever].concurrency }));
export type LabStartBody = z.infer<typeof LabStartBody>;

export const LabExportQuery = z.strictObject({ format: z.enum(EXPORT_FORMATS).default("json") });

/** The longest range /history answers: a day and a bit, so "the last day" fits with room either side. */
export const HISTORY_MAX_SPAN_MS = 26 * 60 * MINUTE;

/** GET /api/targets/{id}/history: [from, to), both required. */
export const HistoryQuery = z
  .strictObject({ from: ms, to: ms })
  .refine((q) => q.from < q.to, { message: "must be after from", path: ["to"] })
  .refine((q) => q.to - q.from <= HISTORY_MAX_SPAN_MS, {
    message: `spans more than ${HISTORY_MAX_SPAN_MS / 3_600_000} hours: ask for a shorter range`,
    path: ["to"],
  });
export type HistoryQuery = z.infer<typeof HistoryQuery>;

/** The ranges the sizing view offers by name. */
export const SIZING_RANGES = { "1h": 3_600_000, "24h": 24 * 3_600_000 } as const;

/** GET /api/targets/{id}/sizing: `range` (the last hour or day, to now) or `from` and `to`; default the last hour. */
export const SizingQuery = z
  .strictObject({
    range: z.enum(Object.keys(SIZING_RANGES) as [keyof typeof SIZING_RANGES]).optional(),
    from: ms.optional(),
    to: ms.optional(),
  })
  .refine((q) => q.range === undefined || (q.from === undefined && q.to === undefined), {
    message: "is not with from and to: one or the other",
    path: ["range"],
  })
  .refine((q) => (q.from === undefined) === (q.to === undefined), { message: "needs from and to together", path: ["to"] })
  .refine((q) => q.from === undefined || q.to === undefined || q.from < q.to, { message: "must be after from", path: ["to"] })
  .refine((q) => q.from === undefined || q.to === undefined || q.to - q.from <= HISTORY_MAX_SPAN_MS, {
    message: `spans more than ${HISTORY_MAX_SPAN_MS / 3_600_000} hours: ask for a shorter range`,
    path: ["to"],
  });
export type SizingQuery = z.infer<typeof SizingQuery>;
