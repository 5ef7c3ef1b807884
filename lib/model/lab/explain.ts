// EXPLAIN (FORMAT JSON) output (pure): a run's figures, the relations a plan
// reads, and whether it would write.
import { z } from "zod";

const PlanNode: z.ZodType<PlanNode> = z.lazy(() =>
  z.looseObject({
    "Node Type": z.string(),
    "Relation Name": z.string().optional(),
    Schema: z.string().optional(),
    "Shared Read Blocks": z.number().optional(),
    "Shared Hit Blocks": z.number().optional(),
    "Shared I/O Read Time": z.number().optional(),
    Plans: z.array(PlanNode).optional(),
  }),
);
interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  Schema?: string;
  "Shared Read Blocks"?: number;
  "Shared Hit Blocks"?: number;
  "Shared I/O Read Time"?: number;
  Plans?: PlanNode[];
}

const Explain = z.tuple([
  z.looseObject({ Plan: PlanNode, "Execution Time": z.number().optional(), "Planning Time": z.number().optional() }),
]);

function parse(json: unknown) {
  const parsed = Explain.safeParse(json);
  if (!parsed.success)
    throw new Error(
      `EXPLAIN output of an unexpected shape (${parsed.error.issues[0]?.path.join(".")}: ${parsed.error.issues[0]?.message})`,
    );
  return parsed.data[0];
}

export interface ExplainFigures {
  executionMs: number;
  planningMs: number;
  /** I/O Timings' shared read: ms waiting for reads; null without track_io_timing */
  readWaitMs: number | null;
  sharedRead: number;
  sharedHit: number;
}

/** EXPLAIN (ANALYZE, BUFFERS)'s own figures: the top node's counts cover the whole plan. */
export function explainFigures(json: unknown): ExplainFigures {
  const top = parse(json);
  if (top["Execution Time"] === undefined) throw new Error("EXPLAIN output has no Execution Time (was it run with ANALYZE?)");
  return {
    executionMs: top["Execution Time"],
    planningMs: top["Planning Time"] ?? 0,
    readWaitMs: top.Plan["Shared I/O Read Time"] ?? null,
    sharedRead: top.Plan["Shared Read Blocks"] ?? 0,
    sharedHit: top.Plan["Shared Hit Blocks"] ?? 0,
  };
}

function walk(node: PlanNode, visit: (n: PlanNode) => void): void {
  visit(node);
  for (const child of node.Plans ?? []) walk(child, visit);
}

/** Every table a plan scans, schema-qualified (EXPLAIN VERBOSE names the schema). */
export function planRelations(json: unknown): { schema: string | null; name: string }[] {
  const seen = new Map<string, { schema: string | null; name: string }>();
  walk(parse(json).Plan, (n) => {
    if (n["Relation Name"]) seen.set(`${n.Schema ?? ""}.${n["Relation Name"]}`, { schema: n.Schema ?? null, name: n["Relation Name"] });
  });
  return [...seen.values()];
}

/** Plan nodes that write or lock rows: a statement with one is not a read-only SELECT. */
const WRITING_NODES = new Set(["ModifyTable", "LockRows"]);

/** The first writing node of a plan, or null. */
export function planWrites(json: unknown): string | null {
  let found: string | null = null;
  walk(parse(json).Plan, (n) => {
    if (!found && WRITING_NODES.has(n["Node Type"])) found = n["Node Type"];
  });
  return found;
}
