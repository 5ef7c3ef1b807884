import { describe, expect, it } from "vitest";
import { tick } from "../../test/support/fixtures";
import { inFlightChart, stateKey } from "./inflight";

const all = { from: 0, to: 1e12 };

describe("inFlightChart", () => {
  it("stacks async handles by state and keeps synchronous handles apart", () => {
    const chart = inFlightChart(
      [
        tick(1, 0),
        tick(2, 100, { aio: { inFlight: 4, bytes: 4 * 131_072, byState: { SUBMITTED: 3, COMPLETED_IO: 1 }, sync: 1, syncBytes: 8192 } }),
        tick(3, 200, { aio: { sync: 2, syncBytes: 16_384 } }),
      ],
      all,
      100,
      [],
    );
    expect(chart.states).toEqual(["SUBMITTED", "COMPLETED_IO"]);
    expect(chart.rows).toEqual([
      { t: 0, async: 0, kb: 0, sync: 0, s_SUBMITTED: 0, s_COMPLETED_IO: 0 },
      { t: 100, async: 4, kb: 512, sync: 1, s_SUBMITTED: 3, s_COMPLETED_IO: 1 },
      { t: 200, async: 0, kb: 0, sync: 2, s_SUBMITTED: 0, s_COMPLETED_IO: 0 },
    ]);
    expect(chart.points).toBe(1);
    expect(chart.max).toBe(4);
    expect(chart.maxSync).toBe(2);
    expect(chart.maxKb).toBe(512);
  });

  it("breaks the stack across an outage with an all-null row", () => {
    const chart = inFlightChart(
      [
        tick(1, 0, { aio: { inFlight: 2, byState: { SUBMITTED: 2 } } }),
        tick(2, 100, { aio: { inFlight: 2, byState: { SUBMITTED: 2 } } }),
        tick(3, 20_000, { aio: { inFlight: 1, byState: { SUBMITTED: 1 } } }),
      ],
      all,
      100,
      [{ from: 150, to: 19_900 }],
    );
    expect(chart.rows.map((r) => r.async)).toEqual([2, 2, null, 1]);
    expect(chart.rows[2]).toEqual({ t: 10_050, async: null, kb: null, sync: null });
  });

  it("is empty of async points when only synchronous reads ran (io_method = sync)", () => {
    const ticks = Array.from({ length: 50 }, (_, i) => tick(i + 1, i * 100, { aio: { sync: i % 2 } }));
    const chart = inFlightChart(ticks, all, 100, []);
    expect(chart.points).toBe(0);
    expect(chart.max).toBe(0);
    expect(chart.states).toEqual([]);
  });

  it("keeps the peak when 15 minutes at 10 Hz are thinned", () => {
    const ticks = Array.from({ length: 9000 }, (_, i) =>
      tick(i + 1, i * 100, { aio: { inFlight: i === 5000 ? 9 : 1, byState: { SUBMITTED: i === 5000 ? 9 : 1 } } }),
    );
    const chart = inFlightChart(ticks, { from: 0, to: 899_900 }, 100, []);
    expect(chart.rows.length).toBeLessThanOrEqual(400);
    expect(chart.max).toBe(9);
    expect(chart.rows.at(-1)?.t).toBe(899_900);
  });

  it.each([
    ["SUBMITTED", "SUBMITTED"],
    ["COMPLETED_SHARED", "COMPLETED_SHARED"],
    ["SOMETHING_NEW", "OTHER"],
  ])("state %s is drawn as %s", (state, key) => expect(stateKey(state)).toBe(key));
});
