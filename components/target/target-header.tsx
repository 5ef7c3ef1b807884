"use client";
import Link from "next/link";
import type { TargetInfo } from "@/lib/schemas/target";
import type { StreamStatus } from "@/lib/client/store";
import { useChannel, usePageNow } from "@/lib/client/hooks";
import { aspectsView, besideQueries, demoBadge, serverStarted, statusText, workersNow } from "@/lib/view/header";
import { formatAgo, formatBytes, formatClock, formatNumber, majorVersion } from "@/lib/format";
import { Badge, type Tone } from "@/components/ui/badge";
import { Term } from "@/components/ui/term";
import { CollectionLine, CostLine } from "./watch-cost";

export const STATUS_TONES = { up: "ok", starting: "warn", down: "bad" } as const satisfies Record<TargetInfo["status"], Tone>;
const STREAM_TONES = { live: "ok", connecting: "muted", reconnecting: "warn" } as const satisfies Record<StreamStatus["state"], Tone>;

export function StatusBadge({ target, now }: { target: TargetInfo; now: number | null }) {
  return (
    <Badge
      tone={STATUS_TONES[target.status]}
      testId="target-status"
      data={{ "data-status": target.status }}
      title={`inflight's connection to this server, ${statusText(target, now)} (the server's own start is under 'server started')`}
    >
      {statusText(target, null)}
    </Badge>
  );
}

function Fact({ label, children, title, testId }: { label: React.ReactNode; children: React.ReactNode; title?: string; testId?: string }) {
  return (
    <div className="min-w-0 max-w-72" title={title} data-testid={testId}>
      <dt className="text-[11px] uppercase tracking-wide text-slate-500">{label}</dt>
      <dd className="truncate text-sm font-medium tabular-nums text-slate-900">{children}</dd>
    </div>
  );
}

/** `controls`: what the view shows and what to do with it (ViewControls), at the right. */
export function TargetHeader({ target, controls }: { target: TargetInfo; controls: React.ReactNode }) {
  const stream = useChannel("stream");
  const now = usePageNow();
  const badge = demoBadge(target);
  const started = serverStarted(target, now);
  const collectionOk = aspectsView(target.aspects, target).allOk;
  return (
    <header className="rounded-lg border border-slate-200 bg-white p-3 shadow-sm [contain:content]">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-2">
        <Link href="/" className="text-sm text-slate-500 hover:text-slate-800">
          ← targets
        </Link>
        <h1
          className="text-lg font-semibold"
          title={
            target.demo
              ? `the PostgreSQL ${majorVersion(target.serverVersion, target.serverVersionNum) ?? ""} that inflight started, with its demo workload`
              : undefined
          }
        >
          {target.name}
        </h1>
        {badge ? <Badge tone="info">{badge}</Badge> : null}
        <Link
          href={`/targets/${encodeURIComponent(target.id)}/sizing`}
          className="text-sm text-blue-700 hover:underline"
          data-testid="sizing-link"
          title="what to set for the io workers, read-ahead, io_method and io_combine_limit, from this server's own history"
        >
          Sizing
        </Link>
        <StatusBadge target={target} now={now} />
        <Badge
          tone={STREAM_TONES[stream.state]}
          testId="stream-state"
          data={{ "data-state": stream.state }}
          title={stream.error ?? "this page's live stream from inflight"}
        >
          {stream.state === "live" ? "live" : `stream ${stream.state}`}
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
      <dl className="mt-2 flex flex-wrap gap-x-6 gap-y-2">
        <Fact label="server">{target.serverVersion ? `PostgreSQL ${target.serverVersion.split(" ")[0]}` : "–"}</Fact>
        <Fact label="server started" title="pg_postmaster_start_time(): when this PostgreSQL last started" testId="server-started">
          {started ?? "–"}
        </Fact>
        <Fact label={<Term term="io_method">io_method</Term>}>{target.ioMethod ?? "–"}</Fact>
        {target.status === "up" ? <NowFacts ioMethod={target.ioMethod} /> : <LastSample />}
      </dl>
      <div className="mt-2 space-y-0.5 border-t border-slate-100 pt-1.5 text-xs text-slate-600">
        <CostLine cost={target.cost}>
          <p data-testid="cadence">
            sampled every {target.sampleMs} ms ({formatNumber(target.achievedHz)} Hz over the last 10 s): {formatNumber(target.samples)}{" "}
            samples, {formatNumber(target.missed)} missed (a sample whose statement had not returned when the next was due);{" "}
            {target.viewers} viewer{target.viewers === 1 ? "" : "s"}
          </p>
          {collectionOk ? <CollectionLine aspects={target.aspects} target={target} /> : null}
          {target.waitSampler && !target.waitSampler.note ? <WaitSamplerLine sampler={target.waitSampler} /> : null}
        </CostLine>
        {target.waitSampler?.note ? <WaitSamplerLine sampler={target.waitSampler} /> : null}
        {collectionOk ? null : <CollectionLine aspects={target.aspects} target={target} />}
      </div>
    </header>
  );
}

/** Where the wait events come from, under the cost toggle; above it only while it says what to run (a GRANT, CREATE EXTENSION). */
function WaitSamplerLine({ sampler }: { sampler: NonNullable<TargetInfo["waitSampler"]> }) {
  return (
    <p data-testid="wait-sampler" data-source={sampler.source}>
      {sampler.text}
      {sampler.note ? <span className="text-amber-700">; {sampler.note}</span> : null}
    </p>
  );
}

const NOT_READ_TITLE = "pg_aios was not read in this sample (the budget spaced it out, or it cannot be read here): unknown, not 0";

/** While the target is down there is no "now": say when the last sample was. */
function LastSample() {
  const latest = useChannel("latest");
  return (
    <Fact label="now" testId="now-facts">
      <span className="text-slate-500">{latest ? `not sampled: the last sample was at ${formatClock(latest.t)}` : "not sampled yet"}</span>
    </Fact>
  );
}

/** The sample of the moment shown (the findings' and the runs', LiveStore.showTickOf): plain text, no chart. */
function NowFacts({ ioMethod }: { ioMethod: string | null }) {
  const latest = useChannel("latest");
  const { queries } = useChannel("queries");
  const workers = workersNow(latest, ioMethod);
  const beside = besideQueries(latest, queries);
  if (!latest) {
    return (
      <div className="col-span-4 text-sm text-slate-500" data-testid="now-facts">
        no sample yet
      </div>
    );
  }
  const aio = latest.aio;
  return (
    <>
      <Fact
        label="reads in flight"
        title={
          aio
            ? `asynchronous reads in flight (pg_aios handles with f_sync = false), ${formatBytes(aio.bytes)}, and synchronous ones, of every process (clients, their parallel workers, autovacuum), sampled at ${formatClock(latest.t)}, a few ms after the running queries were counted: a statement begun in between has its reads here and is not counted there`
            : NOT_READ_TITLE
        }
      >
        {aio ? (
          <>
            <span data-testid="now-inflight" data-known="true">
              {aio.inFlight}
            </span>{" "}
            async <span className="before:mr-1 before:content-['·']">{aio.sync} sync</span>
          </>
        ) : (
          <span data-testid="now-inflight" data-known="false" className="text-slate-500">
            not read this sample
          </span>
        )}
      </Fact>
      <Fact
        label="running queries"
        title={`client backends running a statement, sampled at ${formatClock(latest.t)}, a few ms before the reads in flight were read; autovacuum and background workers running beside them are counted apart, and their reads are among those in flight`}
      >
        <span data-testid="now-active" data-t={latest.t}>
          {latest.active}
        </span>
        {beside ? (
          <span data-testid="now-beside" className="font-normal text-slate-600 before:mx-1 before:content-['·']">
            {beside}
          </span>
        ) : null}
      </Fact>
      <Fact
        label={<Term term="io_workers">io workers busy</Term>}
        title={`${workers.text}; sampled at ${formatClock(latest.t)} (the io workers panel says the same)`}
        testId="header-workers"
      >
        <span data-testid="workers-now" data-busy={workers.busy ?? ""} data-alive={workers.alive ?? ""}>
          {workers.short}
        </span>
      </Fact>
      {workers.pool ? (
        <Fact
          label={<Term term="io_max_workers">io worker pool</Term>}
          title="PostgreSQL 19 launches io workers when reads queue for them, up to io_max_workers, and stops idle ones down to io_min_workers"
          testId="header-pool"
        >
          <span data-testid="workers-pool">{workers.pool}</span>
        </Fact>
      ) : null}
    </>
  );
}
