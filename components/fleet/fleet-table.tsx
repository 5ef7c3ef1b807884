"use client";
import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { FleetResponse, type FleetEntry } from "@/lib/schemas/api";
import { type TargetInfo } from "@/lib/schemas/target";
import { clockOffset, getJson } from "@/lib/client/api";
import { findingHref, fleetRows, historyFindingHref, rowShows, type FleetRow } from "@/lib/view/fleet";
import { historyFindingLines } from "@/lib/view/history";
import { demoBadge, sinceText } from "@/lib/view/header";
import { SEVERITY_LABELS } from "@/lib/view/findings";
import type { Finding } from "@/lib/schemas/findings";
import type { HistoryFinding } from "@/lib/schemas/history";
import { Sentence } from "@/components/ui/term";
import { formatAgo, formatClock, formatNumber } from "@/lib/format";
import { Fragment, memo } from "react";
import { useNow } from "@/lib/client/hooks";
import { VERDICT_LABELS } from "@/lib/view/runs";
import { formatViewParams } from "@/lib/view/url";
import { Badge } from "@/components/ui/badge";
import { STATUS_TONES } from "@/components/target/target-header";
import { VERDICT_TONES } from "@/components/target/queries-panel";
import { RestartLine } from "./restart-line";
import { Sparkline } from "./sparkline";

const REFRESH_MS = 2000;
const QUERY_CHARS = 80;

async function fetchFleet(signal: AbortSignal) {
  const sentAt = Date.now();
  const { data, response } = await getJson("/api/fleet", FleetResponse, signal);
  // statusSince is the server's clock: "3 min ago" needs the difference.
  return { targets: data.targets, offset: clockOffset(response.headers.get("date"), sentAt, Date.now()) };
}

const targetHref = (id: string, run?: string) =>
  `/targets/${encodeURIComponent(id)}${run ? `?${formatViewParams({ view: null, range: null, run })}` : ""}`;

/** Every target at a glance, from one request every 2 s (no stream per target). */
export function FleetTable({ initial }: { initial: TargetInfo[] | null }) {
  const browserNow = useNow();
  const fleet = useQuery({
    queryKey: ["fleet"],
    queryFn: ({ signal }) => fetchFleet(signal),
    refetchInterval: REFRESH_MS,
    structuralSharing: false,
  });
  const rows = fleetRows(fleet.data?.targets, initial);
  const now = browserNow === null ? null : browserNow + (fleet.data?.offset ?? 0);

  if (fleet.isError && !rows.length) {
    return (
      <p role="alert" className="text-sm text-red-800">
        Could not list the targets: {fleet.error.message}
      </p>
    );
  }
  if (!rows.length) return <p className="text-sm text-slate-500">{fleet.isPending ? "Loading targets…" : "No target is configured."}</p>;

  return (
    <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white shadow-sm">
      {fleet.isError ? (
        <p role="alert" className="border-b border-amber-200 bg-amber-50 px-3 py-1 text-xs text-amber-900">
          Not refreshed since {fleet.dataUpdatedAt ? formatClock(fleet.dataUpdatedAt) : "the page loaded"}: {fleet.error.message}
        </p>
      ) : null}
      <table className="w-full text-sm" data-testid="fleet-table">
        <thead>
          <tr className="border-b border-slate-200 text-left text-[11px] uppercase tracking-wide text-slate-500">
            <th className="px-3 py-2 font-medium">target</th>
            <th className="px-3 py-2 font-medium">status</th>
            <th className="px-3 py-2 font-medium">server</th>
            <th className="px-3 py-2 font-medium">io_method</th>
            <th className="px-3 py-2 font-medium">pending restart</th>
            <th className="px-3 py-2 text-right font-medium">async reads in flight</th>
            <th className="px-3 py-2 font-medium" title="most async reads in flight in each second of the last minute; gaps: no sample">
              last minute
            </th>
            <th className="px-3 py-2 font-medium">busiest query now</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <FleetRowView key={row.target.id} row={row} now={now} shows={rowShows(row, now)} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

const UNKNOWN = <span className="text-slate-500">…</span>;

/**
 * One target's rows, drawn again only when what they show changed (`shows`,
 * from rowShows): a poll every 2 s and a clock every second would otherwise
 * redraw a hundred rows each time (issue 21).
 */
const FleetRowView = memo(
  function FleetRowView({ row, now }: { row: FleetRow; now: number | null; shows: string }) {
    const finding = row.entry?.topFinding ?? null;
    const hour = row.entry?.hourFinding ?? null;
    return (
      <Fragment>
        <FleetFacts row={row} now={now} />
        {finding ? <TopFinding targetId={row.target.id} finding={finding} /> : null}
        {hour ? <HourFinding targetId={row.target.id} finding={hour} /> : null}
      </Fragment>
    );
  },
  (a, b) => a.shows === b.shows,
);

const SEVERITY_TEXT = { act: "text-red-800", note: "text-amber-800", info: "text-slate-600" } as const satisfies Record<
  Finding["severity"],
  string
>;

/** A finding at a glance, on one line: "SELECT …: waiting on its async reads → raise io_workers (now 1)". */
function glanceLine({ glance: g }: Finding): string {
  return `${g.query ? `${g.query}: ` : ""}${g.now}${g.lever ? ` → ${g.lever}` : ""}`;
}

/** The target's most severe finding, one line (its sentence on hover), to its run or its page. */
function TopFinding({ targetId, finding }: { targetId: string; finding: Finding }) {
  return (
    <tr
      data-testid="fleet-finding"
      data-target={targetId}
      data-rule={finding.rule}
      data-severity={finding.severity}
      className="border-b border-slate-100"
    >
      <td colSpan={8} className="max-w-0 px-3 pb-2 pt-0">
        <Link
          href={findingHref(targetId, finding)}
          className={`block truncate text-xs hover:underline ${SEVERITY_TEXT[finding.severity]}`}
          title={finding.text}
        >
          <span className="font-semibold uppercase">{SEVERITY_LABELS[finding.severity]}</span> {glanceLine(finding)}
        </Link>
      </td>
    </tr>
  );
}

/** The worst finding of the last hour, from disk, with the span it held: to that range on the target's page. */
function HourFinding({ targetId, finding }: { targetId: string; finding: HistoryFinding }) {
  const [line] = historyFindingLines([finding], { from: finding.from, to: finding.to ?? finding.seen });
  return (
    <tr data-testid="fleet-hour-finding" data-target={targetId} data-rule={finding.rule} className="border-b border-slate-100">
      <td colSpan={8} className="max-w-0 px-3 pb-2 pt-0">
        <Link
          href={historyFindingHref(targetId, finding)}
          className={`block truncate text-xs hover:underline ${SEVERITY_TEXT[finding.severity]}`}
          title={finding.text}
        >
          <span className="text-slate-500">last hour, worst: {line.span}:</span> <Sentence text={finding.text} />
        </Link>
      </td>
    </tr>
  );
}

function FleetFacts({ row: { target: t, entry }, now }: { row: FleetRow; now: number | null }) {
  const badge = demoBadge(t);
  return (
    <tr
      data-testid="fleet-row"
      data-target={t.id}
      className={`align-top ${entry?.topFinding ? "" : "border-b border-slate-100 last:border-0"}`}
    >
      <td className="px-3 py-2">
        <Link href={targetHref(t.id)} className="font-medium text-blue-700 hover:underline">
          {t.name}
        </Link>
        {badge ? (
          <span className="ml-2">
            <Badge tone="info">{badge}</Badge>
          </span>
        ) : null}
        <div
          className="text-xs text-slate-500 tabular-nums"
          title="samples per second achieved over the last 10 s, against the interval in force"
        >
          {formatNumber(t.achievedHz)} Hz / every {t.sampleMs} ms
        </div>
      </td>
      <td className="px-3 py-2">
        <Badge tone={STATUS_TONES[t.status]} testId="target-status" data={{ "data-status": t.status }}>
          {t.status}
        </Badge>
        <div className="mt-0.5 text-xs text-slate-500 tabular-nums" data-testid="status-since">
          {sinceText(t, now)}
        </div>
        {t.status !== "up" && t.lastError ? (
          <div className="mt-0.5 max-w-sm break-words text-xs text-red-700" data-testid="target-last-error">
            {t.lastError}
          </div>
        ) : null}
      </td>
      <td className="px-3 py-2 tabular-nums">{t.serverVersion ? `PostgreSQL ${t.serverVersion}` : "–"}</td>
      <td className="px-3 py-2 font-mono text-xs">
        {t.ioMethod ?? "–"}
        <RestartLine summary={entry?.lastRestart} now={now} />
      </td>
      <td className="px-3 py-2" data-testid="pending-restarts">
        {!entry ? (
          UNKNOWN
        ) : entry.pendingRestarts.length ? (
          <Badge tone="warn">{entry.pendingRestarts.join(", ")}</Badge>
        ) : (
          <span className="text-xs text-slate-500">none</span>
        )}
      </td>
      <td className="px-3 py-2 text-right tabular-nums" data-testid="inflight-now">
        {!entry ? (
          UNKNOWN
        ) : entry.inFlightNow === null ? (
          <span className="text-xs text-slate-500" title="pg_aios was not read in the last sample: unknown, not 0">
            not read
          </span>
        ) : (
          entry.inFlightNow
        )}
        {entry?.syncNow ? <div className="text-xs text-slate-500">+{entry.syncNow} sync</div> : null}
      </td>
      <td className="px-3 py-2">{entry ? <Sparkline values={entry.spark} /> : UNKNOWN}</td>
      <td className="px-3 py-2">{entry ? <Busiest targetId={t.id} query={entry.busiestQuery} now={now} /> : UNKNOWN}</td>
    </tr>
  );
}

function Busiest({ targetId, query, now }: { targetId: string; query: FleetEntry["busiestQuery"]; now: number | null }) {
  if (!query) return <span className="text-xs text-slate-500">no query running</span>;
  const flat = query.query.replace(/\s+/g, " ").trim();
  return (
    <Link
      href={targetHref(targetId, query.id)}
      className="block max-w-md hover:bg-slate-100"
      data-testid="busiest-query"
      title="open the target with this run's timeline"
    >
      <div className="flex flex-wrap items-center gap-1 text-xs">
        <Badge tone={VERDICT_TONES[query.verdict]}>{VERDICT_LABELS[query.verdict]}</Badge>
        <span className="tabular-nums text-slate-600">
          {query.inFlight} in flight
          {now !== null ? ` · started ${formatAgo(query.startedAt, now)}` : ""}
        </span>
      </div>
      <code className="mt-0.5 block break-words font-mono text-xs text-slate-800" data-testid="query-text">
        {flat.length > QUERY_CHARS ? `${flat.slice(0, QUERY_CHARS)}…` : flat}
      </code>
    </Link>
  );
}
