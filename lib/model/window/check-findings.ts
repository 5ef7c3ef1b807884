// A check and a finding about one thing show one state: while a finding
// acts on (or warns about) a check's subject, the check shows the finding's
// state and cites it, never "pass". The one table from rule to check.
import type { Finding, FindingRule, FindingSeverity } from "../../schemas/findings";
import type { Check } from "../../schemas/settings";

/** For each rule that speaks about a check's subject: the check's id, and the finding in a few words. */
export const CHECK_OF_RULE = {
  readahead_depth: { check: "effective_io_concurrency", brief: "read-ahead depth is the limit of a running query" },
  workers_queue: { check: "io_workers", brief: "the io workers are the queue" },
  io_method_sync: { check: "async_observed", brief: "io_method = sync makes a running scan wait for each read in turn" },
  combine_clamped: { check: "io_combine_limit", brief: "io_combine_limit is clamped" },
  restart_pending: { check: "pending_restart", brief: "a setting waits for a restart" },
  io_uring_submit: { check: "io_uring", brief: "handing reads to io_uring is where backends wait" },
} as const satisfies Partial<Record<FindingRule, { check: string; brief: string }>>;

type MappedRule = keyof typeof CHECK_OF_RULE;
const isMapped = (rule: FindingRule): rule is MappedRule => rule in CHECK_OF_RULE;

/** The finding states a check takes over; info only explains. */
const TAKEN: readonly FindingSeverity[] = ["act", "note"];

/**
 * The checks with each one a current finding acts on or warns about shown
 * in that finding's state (the most severe of them), its message led by
 * the finding in brief. A check that fails (something broken) stays failed.
 */
export function checksWithFindings(checks: readonly Check[], findings: readonly Pick<Finding, "rule" | "severity">[]): Check[] {
  return checks.map((check) => {
    const about = findings
      .filter((f) => TAKEN.includes(f.severity) && isMapped(f.rule) && CHECK_OF_RULE[f.rule].check === check.id)
      .sort((a, b) => TAKEN.indexOf(a.severity) - TAKEN.indexOf(b.severity))[0];
    if (!about || !isMapped(about.rule)) return check;
    const brief = CHECK_OF_RULE[about.rule].brief;
    return {
      ...check,
      status: check.status === "fail" ? "fail" : about.severity,
      message: `${brief.charAt(0).toUpperCase()}${brief.slice(1)} (see the finding above). ${check.message}`,
    };
  });
}
