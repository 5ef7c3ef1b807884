"use client";
import { useState } from "react";
import Link from "next/link";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { SizingResponse } from "@/lib/schemas/sizing";
import { getJson } from "@/lib/client/api";
import { customRange, sizingUrl, type SizingRange } from "@/lib/view/sizing";
import { formatClock, formatDuration } from "@/lib/format";
import { Panel } from "@/components/ui/panel";
import { SizingLeverRow } from "./sizing-lever";

const REFRESH_MS = 30_000;

const NAMED = [
  { range: "1h", label: "last hour" },
  { range: "24h", label: "last day" },
] as const;

function RangePicker({ value, onChange }: { value: SizingRange; onChange: (r: SizingRange) => void }) {
  const [from, setFrom] = useState("");
  const [to, setTo] = useState("");
  const custom = customRange(from, to);
  const button = (on: boolean) => `rounded px-2 py-1 ${on ? "bg-slate-800 text-white" : "bg-slate-100 text-slate-700 hover:bg-slate-200"}`;
  return (
    <div className="flex flex-wrap items-center gap-2 text-xs" data-testid="sizing-range">
      {NAMED.map((n) => (
        <button
          key={n.range}
          type="button"
          className={button(value.kind === "named" && value.range === n.range)}
          onClick={() => onChange({ kind: "named", range: n.range })}
          data-testid={`sizing-range-${n.range}`}
        >
          {n.label}
        </button>
      ))}
      <label className="flex items-center gap-1">
        from{" "}
        <input
          type="datetime-local"
          value={from}
          onChange={(e) => setFrom(e.target.value)}
          className="rounded border border-slate-300 px-1 py-0.5"
          data-testid="sizing-from"
        />
      </label>
      <label className="flex items-center gap-1">
        to{" "}
        <input
          type="datetime-local"
          value={to}
          onChange={(e) => setTo(e.target.value)}
          className="rounded border border-slate-300 px-1 py-0.5"
          data-testid="sizing-to"
        />
      </label>
      <button
        type="button"
        disabled={!custom}
        className={`${button(value.kind === "custom")} disabled:opacity-50`}
        onClick={() => custom && onChange(custom)}
        data-testid="sizing-custom"
      >
        show
      </button>
    </div>
  );
}

/** The sizing view of one target (issue 41): per lever, a verdict from this server's own history over the range picked. */
export function SizingView({ id, demo, initial }: { id: string; demo: boolean; initial: SizingRange }) {
  const [range, setRange] = useState<SizingRange>(initial);
  const sizing = useQuery({
    queryKey: ["sizing", id, range],
    queryFn: async ({ signal }) => (await getJson(sizingUrl(id, range), SizingResponse, signal)).data,
    refetchInterval: range.kind === "named" ? REFRESH_MS : false,
    placeholderData: keepPreviousData,
  });
  const s = sizing.data;
  return (
    <main className="mx-auto max-w-5xl space-y-3 p-4">
      <header className="flex flex-wrap items-center gap-3">
        <Link href={`/targets/${encodeURIComponent(id)}`} className="text-sm text-slate-500 hover:text-slate-800">
          ← {id}
        </Link>
        <h1 className="text-lg font-semibold">Sizing</h1>
        <RangePicker value={range} onChange={setRange} />
      </header>
      <Panel
        wide
        testId="sizing-panel"
        title="What to set, from this server's own history"
        subtitle={
          s
            ? `${formatClock(s.from)}–${formatClock(s.to)} (${formatDuration(s.to - s.from)}), ${formatDuration(s.sampledMs)} of it sampled, from the ${s.source === "history" ? "history on disk" : "live window"}`
            : undefined
        }
      >
        {sizing.isError ? (
          <p role="alert" className="text-sm text-amber-900" data-testid="sizing-error">
            {sizing.error.message}
          </p>
        ) : !s ? (
          <p className="text-sm text-slate-500">Loading the history…</p>
        ) : (
          <>
            {s.note ? (
              <p className="mb-2 rounded bg-amber-50 px-2 py-1 text-sm text-amber-900" data-testid="sizing-note">
                {s.note}
              </p>
            ) : null}
            <ul className="divide-y divide-slate-100" data-testid="sizing-levers" data-from={s.from} data-to={s.to}>
              {s.levers.map((l) => (
                <SizingLeverRow key={l.lever} lever={l} demo={demo} />
              ))}
            </ul>
          </>
        )}
      </Panel>
    </main>
  );
}
