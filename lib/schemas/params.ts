import { z } from "zod";
import { IO_METHODS, IO_WORKERS_RANGE } from "./enums";

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
  io_workers: z.number().int().min(IO_WORKERS_RANGE.min).max(IO_WORKERS_RANGE.max).optional(),
});
