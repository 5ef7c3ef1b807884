import { describe, expect, it } from "vitest";
import { busiest, sparkline } from "./fleet";
import type { QueryRun } from "../../schemas/runs";
import { tick as fixture } from "../../../test/support/fixtures";

const tick = (t: number, inFlight: number) => fixture(t, t, { aio: { inFlight } });

describe("sparkline", () => {
  it("keeps the max per second, null where nothing was sampled", () => {
    const now = 100_500;
    const s = sparkline([tick(97_100, 2), tick(97_900, 5), tick(99_000, 1), tick(100_400, 0)], now, 5);
    expect(s).toEqual([null, 5, null, 1, 0]);
  });
});

describe("busiest", () => {
  const run = (id: string, inFlightNow: number, startedAt: number, endedAt: number | null = null) =>
    ({ id, inFlightNow, startedAt, endedAt }) as QueryRun;
  it("picks the running query with the most in flight, then the oldest", () => {
    expect(busiest([run("a", 1, 10), run("b", 4, 20), run("c", 9, 5, 30)])?.id).toBe("b");
    expect(busiest([run("a", 0, 10), run("b", 0, 5)])?.id).toBe("b");
    expect(busiest([run("c", 9, 5, 30)])).toBeNull();
  });
});
