import { describe, expect, it } from "vitest";
import type { RunBackend } from "./derive";
import { MAX_WATCHED, SessionStatements, WATCH_MS } from "./session-statements";

const idle = (startMs: number, endMs: number, queryId: string | null = "8"): RunBackend => ({
  runId: `x:${startMs}`,
  queryStartMs: startMs,
  idleSinceMs: endMs,
  queryId,
});
const never = () => false;

describe("SessionStatements: the statements the polls saw end in the sessions they miss", () => {
  it("keeps what the polls saw a watched session end, once each, and nothing of a session not watched or still active", () => {
    const s = new SessionStatements();
    s.watch(10, 1000);
    s.note(
      new Map([
        [10, idle(1100, 1250)],
        [11, idle(1100, 1250)],
      ]),
    );
    s.note(new Map([[10, idle(1100, 1250)]]));
    s.note(new Map([[10, { ...idle(1400, 0), idleSinceMs: null }]]));
    expect(s.within(10, "8", 1000, 2000, never)).toEqual({ queryId: "8", startMs: 1100, endMs: 1250 });
    expect(s.within(11, "8", 1000, 2000, never)).toBeNull();
    // another query, or outside the span
    expect(s.within(10, "9", 1000, 2000, never)).toBeNull();
    expect(s.within(10, "8", 1250, 2250, never)).toBeNull();
  });

  it("keeps watching a session while it has samples in the profile, though none of them go to no run", () => {
    const s = new SessionStatements();
    s.watch(10, 1000);
    for (let t = 2000; t <= 1000 + 3 * WATCH_MS; t += 1000) s.stillRunning([10, 11], t);
    expect(s.pids(1000 + 3 * WATCH_MS)).toEqual([10]);
    expect(s.pids(1001 + 4 * WATCH_MS)).toEqual([]);
  });

  it("lets a session go WATCH_MS after its last missed samples, and watches the latest MAX_WATCHED at most", () => {
    const s = new SessionStatements();
    s.watch(10, 1000);
    s.note(new Map([[10, idle(1100, 1250)]]));
    expect(s.pids(1000 + WATCH_MS)).toEqual([10]);
    expect(s.pids(1001 + WATCH_MS)).toEqual([]);
    expect(s.within(10, "8", 1000, 2000, never)).toBeNull();
    for (let pid = 1; pid <= MAX_WATCHED + 5; pid++) s.watch(pid, 5000 + pid);
    s.watch(3, 6000);
    const pids = s.pids(6000);
    expect(pids).toHaveLength(MAX_WATCHED);
    expect(pids).not.toContain(1);
    expect(pids).toContain(3);
  });
});
