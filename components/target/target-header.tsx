"use client";
import Link from "next/link";
import type { TargetInfo } from "@/lib/schemas/target";
import type { StreamStatus } from "@/lib/client/live/store";
import { useChannel, useNow } from "@/lib/client/live/hooks";
import { formatAgo, formatBytes, formatClock, formatNumber } from "@/lib/format";
import { Badge, type Tone } from "@/components/ui/badge";

export const STATUS_TONES = { up: "ok", starting: "warn", down: "bad" } as const satisfies Record<TargetInfo["status"], Tone>;
const STREAM_TONES = { live: "ok", connecting: "muted", reconnecting: "warn" } as const satisfies Record<StreamStatus["state"], Tone>;

export function StatusBadge({ target, now }: { target: TargetInfo; now: number | null }) {
  return (
    <Badge tone={STATUS_TONES[target.status]} testId="target-status" data={{ "data-status": target.status }}>
      {target.status}
      {now !== null ? ` · since ${formatClock(target.statusSince)} (${formatAgo(target.statusSince, now)})` : ""}
    </Badge>
  );
}

function Fact({ label, children, title }: { label: string; children: React.ReactNode; title?: string }) {
  return (
    <div className="min-w-0" title={title}>
      <dt className="text-[11px] uppercase tracking-wide text-slate-500">{label}</dt>
      <dd className="truncate text-sm font-medium tabular-nums text-slate-900">{children}</dd>
    </div>
  );
}

/** `controls`: what the view shows and what to do with it (ViewControls), at the right. */
export function TargetHeader({ target, controls }: { target: TargetInfo; controls: React.ReactNode }) {
  const stream = useChannel("stream");
  const now = useNow(1000);
  return (
    <header className="rounded-lg border border-slate-200 bg-white p-3 shadow-sm">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-2">
        <Link href="/" className="text-sm text-slate-500 hover:text-slate-800">
          ← targets
        </Link>
        <h1 className="text-lg font-semibold">{target.name}</h1>
        <StatusBadge target={target} now={now} />
        {target.demo ? <Badge tone="info">demo</Badge> : null}
        <Badge tone={STREAM_TONES[stream.state]} testId="stream-state" data={{ "data-state": stream.state }} title={stream.error ?? undefined}>
          stream {stream.state}
          {stream.state !== "live" && stream.since && now !== null ? ` for ${formatAgo(stream.since, now).replace(/ ago$/, "")}` : ""}
        </Badge>
        {controls}
      </div>
      {target.status !== "up" && target.lastError ? (
        <p className="mt-2 rounded bg-red-50 px-2 py-1 text-sm text-red-800" data-testid="target-error">
          {target.lastError}
        </p>
      ) : null}
      {stream.error ? <p className="mt-1 text-xs text-amber-700">{stream.error}</p> : null}
      <dl className="mt-3 grid grid-cols-2 gap-x-4 gap-y-2 sm:grid-cols-4 lg:grid-cols-8">
        <Fact label="server">{target.serverVersion ? `PostgreSQL ${target.serverVersion}` : "–"}</Fact>
        <Fact label="io_method">{target.ioMethod ?? "–"}</Fact>
        <Fact label="cadence" title="the sampling interval in force and the rate achieved over the last 10 s">
          every {target.sampleMs} ms · {formatNumber(target.achievedHz)} Hz
        </Fact>
        <Fact label="samples / missed" title="a sample whose statement had not returned when the next was due is skipped and counted as missed">
          {formatNumber(target.samples)} / {formatNumber(target.missed)}
        </Fact>
        <Fact label="viewers">{target.viewers}</Fact>
        <NowFacts />
      </dl>
    </header>
  );
}

/** The newest sample, redrawn on every tick: plain text, no chart. */
function NowFacts() {
  const latest = useChannel("latest");
  if (!latest) {
    return (
      <div className="col-span-3 text-sm text-slate-500" data-testid="now-facts">
        no sample yet
      </div>
    );
  }
  return (
    <>
      <Fact label="async in flight now">
        <span data-testid="now-inflight">{latest.aio ? latest.aio.inFlight : "–"}</span> {latest.aio ? <span className="text-slate-500">({formatBytes(latest.aio.bytes)})</span> : null}
      </Fact>
      <Fact label="sync (f_sync) now">{latest.aio ? latest.aio.sync : "–"}</Fact>
      <Fact label="active / workers busy" title={`sampled at ${formatClock(latest.t)}`}>
        {latest.active} / {latest.workers.busy} of {latest.workers.alive}
      </Fact>
    </>
  );
}
