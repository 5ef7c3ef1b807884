// Whether pg_wait_sampling's profile is worth reading: its read a second against the polls it spares.
import { describe, expect, it } from "vitest";
import { POLLS_SPARED, profileWeighed } from "./wait-sampler";

describe("profileWeighed", () => {
  it("spares six polls a second at the shipped cadences (ten without the profile, four with it)", () => {
    expect(POLLS_SPARED).toBe(6);
  });

  it("figure 12's small target: a read of 0.3 ms against polls of 0.144 ms is worth it", () => {
    expect(profileWeighed(0.3, 0.144)).toMatchObject({ dear: false, profileMsPerSecond: 0.3 });
    expect(profileWeighed(0.3, 0.144).sparedMsPerSecond).toBeCloseTo(0.864, 3);
  });

  it("the profile after 1,000 short sessions (4.5 ms a read, measured on Debian's 1.1.11): dearer than the polls it spares", () => {
    expect(profileWeighed(4.5, 0.144).dear).toBe(true);
  });
});
