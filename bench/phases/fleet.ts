import type { Bench } from "./context";

export async function manyTargets(bench: Bench): Promise<void> {
  bench.log("fleet: not written yet");
}
