import { describe, expect, it } from "vitest";
import { run, target, tick } from "../../../test/support/fixtures";
import type { Finding, FindingRule } from "../../schemas/findings";
import { CHECK_OF_RULE, checksWithFindings } from "./check-findings";
import { computeChecks } from "./checks";
import { computeFindings } from "./findings";
import { toSettings } from "./settings";

const row = (name: string, setting: string, unit: string | null = null, enumvals: string[] | null = null) => ({
  name,
  setting,
  unit,
  source: "default",
  pending_restart: false,
  enumvals,
  vartype: "string",
});
const settingsOf = (method: string) =>
  toSettings([
    row("io_method", method, null, ["sync", "worker", "io_uring"]),
    row("io_workers", "3"),
    row("effective_io_concurrency", "16"),
    row("io_combine_limit", "16", "8kB"),
    row("io_max_combine_limit", "16", "8kB"),
    row("block_size", "8192"),
  ]);

/** Every check as it would be on this server with no finding: each mapped one passes. */
const passing = (method: string) =>
  computeChecks({
    settings: settingsOf(method),
    capabilities: null,
    lastTick: tick(1, 1, { workers: { alive: method === "worker" ? 3 : 0 } }),
    asyncSeen: false,
    readsSeen: false,
  });
const finding = (rule: FindingRule, severity: Finding["severity"]) => ({ rule, severity });

describe("checksWithFindings: a check never passes what a finding acts on", () => {
  it.each<[FindingRule, string, Finding["severity"]]>([
    ["readahead_depth", "worker", "act"],
    ["workers_queue", "worker", "act"],
    ["workers_queue", "worker", "note"],
    ["io_method_sync", "sync", "act"],
    ["combine_clamped", "worker", "act"],
    ["restart_pending", "worker", "act"],
    ["io_uring_submit", "io_uring", "note"],
  ])("%s (%s, %s): its check shows the finding's state and cites it", (rule, method, severity) => {
    const id = CHECK_OF_RULE[rule as keyof typeof CHECK_OF_RULE].check;
    const before = passing(method).find((c) => c.id === id);
    expect(before?.status).toBe("pass");
    const after = checksWithFindings(passing(method), [finding(rule, severity)]).find((c) => c.id === id);
    expect(after?.status).toBe(severity);
    expect(after?.message).toMatch(/\(see the finding above\)\. /);
    expect(after?.message.endsWith(before!.message)).toBe(true);
  });

  it("an info finding, or one about another subject, leaves the checks as they are", () => {
    expect(
      checksWithFindings(passing("worker"), [
        finding("async_reads", "info"),
        finding("small_reads", "note"),
        finding("reload_applied", "info"),
      ]),
    ).toEqual(passing("worker"));
  });

  it("the most severe of two findings on one check; a failing check stays failed", () => {
    const io = (checks: ReturnType<typeof passing>) => checks.find((c) => c.id === "io_workers")!;
    expect(io(checksWithFindings(passing("worker"), [finding("workers_queue", "note"), finding("workers_queue", "act")])).status).toBe(
      "act",
    );
    const failing = passing("worker").map((c) => (c.id === "io_workers" ? { ...c, status: "fail" as const } : c));
    expect(io(checksWithFindings(failing, [finding("workers_queue", "act")])).status).toBe("fail");
  });

  it("the issue's case: read-ahead pinned at effective_io_concurrency, from the findings themselves", () => {
    const NOW = 100_000;
    const scan = run({
      id: "42:60000",
      pid: 42,
      query: "SELECT count(*) FROM t",
      startedAt: NOW - 40_000,
      lastSeen: NOW,
      samples: 400,
      aioReadSamples: 400,
      cpuSamples: 180,
      aioWaitSamples: 220,
      ioWaitSamples: 220,
      aioSamples: 340,
      maxInFlight: 16,
      sumInFlight: 340 * 15,
      asyncReadBytes: 126_000,
      verdict: "async",
    });
    const recent = Array.from({ length: 50 }, (_, i) => tick(i + 1, NOW - 5000 + i * 100, { workers: { alive: 3, busy: 1 } }));
    const { findings } = computeFindings({
      now: NOW,
      target: target({ postmasterStart: NOW - 3_600_000 }),
      settings: settingsOf("worker"),
      restarts: [],
      statements: [],
      runs: [scan],
      recent,
    });
    expect(findings.map((f) => f.rule)).toContain("readahead_depth");
    const check = checksWithFindings(passing("worker"), findings).find((c) => c.id === "effective_io_concurrency");
    expect(check).toMatchObject({
      status: "act",
      message: expect.stringMatching(
        /^Read-ahead depth is the limit of a running query \(see the finding above\)\. effective_io_concurrency = 16/,
      ),
    });
  });
});
