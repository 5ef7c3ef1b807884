import { describe, expect, it } from "vitest";
import { target } from "../../test/support/fixtures";
import { downText, inFlightEmpty, noSamples, statementsEmpty } from "./empty";
import { formatClock } from "@/lib/format";

// A target that is down was explained as "io_method is sync, or no read is running" and
// "pg_stat_statements is not installed" instead of by its error (issue 11).
describe("empty panels of a target that is down", () => {
  const down = target({ status: "down", statusSince: 5000, lastError: "connect ECONNREFUSED 127.0.0.1:5432", capabilities: null });
  const says = `demo is down since ${formatClock(5000)}: connect ECONNREFUSED 127.0.0.1:5432.`;
  it("say it is down, with the error", () => {
    expect(downText(down)).toBe(says);
    expect(inFlightEmpty(down, 0)).toBe(`${says} Nothing sampled since.`);
    expect(noSamples(down, "No samples in view yet")).toBe(`${says} Nothing sampled since.`);
    expect(statementsEmpty(down, null)).toMatch(/^demo is down since/);
    expect(statementsEmpty(down, null)).not.toMatch(/not installed/);
  });
  it("draw what they have", () => expect(inFlightEmpty(down, 3)).toBeNull());
});

describe("empty panels of a target that is up", () => {
  it.each([
    [target({ ioMethod: "sync" }), /io_method = sync reads synchronously/],
    [target({ ioMethod: "worker" }), /no read is running/],
    [target({ capabilities: { ...target().capabilities!, aios: false } }), /no pg_aios/],
  ])("in-flight chart %#", (t, want) => expect(inFlightEmpty(t, 0)).toMatch(want));

  it("statements: why, from the statements aspect", () => {
    const aspects = target().aspects.map((a) =>
      a.aspect === "statements" ? { ...a, state: "unavailable" as const, note: "pg_stat_statements is not installed in this database" } : a,
    );
    expect(statementsEmpty(target({ aspects }), null)).toBe("pg_stat_statements is not installed in this database");
    expect(statementsEmpty(target(), null)).toBe("No statement completed in the window.");
    expect(downText(target())).toBeNull();
  });
});
