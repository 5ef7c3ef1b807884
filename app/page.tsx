import { FleetTable } from "@/components/fleet/fleet-table";
import { getRuntime } from "@/lib/server/runtime/runtime";
import type { TargetInfo } from "@/lib/schemas/target";
import { cadenceNote } from "@/lib/view/fleet";
import { WAIT_SAMPLING_WATCHED_MS } from "@/lib/server/collector/options";
import { fleetMajor, aioTitle } from "@/lib/model/window/major";

export const dynamic = "force-dynamic";

/** The fleet: every watched target, with the first rows rendered on the server. */
export default function Home() {
  const runtime = getRuntime();
  const initial: TargetInfo[] | null = runtime ? [...runtime.collectors.values()].map((c) => c.info()) : null;
  return (
    <main className="mx-auto max-w-[1400px] space-y-3 p-4">
      <header className="flex items-baseline justify-between">
        <h1 className="text-lg font-semibold">inflight</h1>
        <p className="text-sm text-slate-500" data-testid="fleet-title">
          {aioTitle(fleetMajor(initial ?? []))}, live
        </p>
      </header>
      <FleetTable initial={initial} />
      <p className="text-xs text-slate-500" data-testid="fleet-cadence">
        Pick a target for its live view.{" "}
        {runtime
          ? cadenceNote(
              runtime.config.watchedSampleMs,
              runtime.config.idleSampleMs,
              runtime.config.watchedSampleMsGiven ? null : WAIT_SAMPLING_WATCHED_MS,
            )
          : ""}
      </p>
    </main>
  );
}
