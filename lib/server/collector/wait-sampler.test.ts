// Whether pg_wait_sampling's profile is worth reading: its read a second against the polls it spares.
import { describe, expect, it } from "vitest";
import { POLLS_SPARED, profileWeighed } from "./wait-sampler";

describe("profileWeighed", () => {
  it("spares six polls a second at the shipped cadences (ten without the profile, four with it)", () => {
    expect(POLLS_SPARED).toBe(6);
  });

  it("a small profile read slowly (the wait for the extension's worker on a busy machine, figure 12: 61 entries at 1.8 ms): kept", () => {
    expect(profileWeighed(1.8, 0.115, 61).dear).toBe(false);
  });

  it("figure 12's small target: a read of 0.3 ms against polls of 0.144 ms is worth it", () => {
    expect(profileWeighed(0.3, 0.144, 89)).toMatchObject({ dear: false, profileMsPerSecond: 0.3 });
    expect(profileWeighed(0.3, 0.144, 89).sparedMsPerSecond).toBeCloseTo(0.864, 3);
  });

  it("figure 12's 1000 x 64 target, a read of 47 entries at 0.93 ms, about the spared polls' activity reads: kept, the margin is their pg_aios reads", () => {
    expect(profileWeighed(0.93, 0.15, 47).dear).toBe(false);
  });

  it("the profile after 1,000 short sessions (4.5 ms a read, measured on Debian's 1.1.11): dearer than twice the polls it spares", () => {
    expect(profileWeighed(4.5, 0.144, 2243).dear).toBe(true);
    expect(profileWeighed(1.8, 0.144, 2243).dear).toBe(true);
  });
});
