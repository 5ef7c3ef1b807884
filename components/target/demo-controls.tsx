"use client";
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import type { PanelTarget } from "@/lib/client/panel-target";
import { postJson, targetPath } from "@/lib/client/api";
import { useChannel } from "@/lib/client/hooks";
import { IO_METHODS, IO_WORKERS_RANGE, type IoMethod } from "@/lib/schemas/enums";
import { Panel } from "@/components/ui/panel";
import { Term } from "@/components/ui/term";
import { workerSizing } from "@/lib/model/window/major";

const { min: MIN_WORKERS, max: MAX_WORKERS } = IO_WORKERS_RANGE;

/** The io_methods this server's build offers (pg_settings enumvals), in IO_METHODS order. */
function offered(enumvals: string[] | null | undefined): IoMethod[] {
  return IO_METHODS.filter((m) => (enumvals ?? ["sync", "worker"]).includes(m));
}

/** Restart the embedded demo server with other io settings (demo target only). */
export function DemoControls({ target }: { target: PanelTarget }) {
  const { settings } = useChannel("settings");
  const current = settings.io_method?.setting;
  // 18 sizes its io workers with io_workers; 19 a pool between io_min_workers and io_max_workers.
  const sizing = workerSizing(settings);
  const pool = sizing?.kind === "pool" ? sizing : null;
  const currentWorkers = sizing?.kind === "fixed" ? sizing.workers : 3;
  // What the user picked; until then, what the server runs with.
  const [choice, setChoice] = useState<{ method?: IoMethod; workers?: number; min?: number; max?: number }>({});
  const methods = offered(settings.io_method?.enumvals);
  const method = choice.method ?? methods.find((m) => m === current) ?? "worker";
  const workers = choice.workers ?? currentWorkers;
  const min = choice.min ?? pool?.min ?? 2;
  const max = Math.max(min, choice.max ?? pool?.max ?? 8);
  const counts = method !== "worker" ? {} : pool ? { io_min_workers: min, io_max_workers: max } : { io_workers: workers };
  const clamp = (v: string) => Math.min(MAX_WORKERS, Math.max(MIN_WORKERS, Math.round(Number(v) || MIN_WORKERS)));

  const restart = useMutation({
    mutationFn: () => postJson(`${targetPath(target.id)}/demo`, { io_method: method, ...counts }),
    onSuccess: () => setChoice({}),
  });
  const busy = restart.isPending || target.status === "starting";

  return (
    <Panel
      title="Demo controls"
      subtitle="Restart the embedded PostgreSQL with other io settings, then watch the charts change (a red line marks the restart)."
    >
      <form
        className="flex flex-wrap items-end gap-3 text-sm"
        onSubmit={(e) => {
          e.preventDefault();
          restart.mutate();
        }}
      >
        <label className="flex flex-col gap-0.5">
          <span className="text-xs text-slate-500">
            <Term term="io_method">io_method</Term>
          </span>
          <select
            data-testid="demo-io-method"
            value={method}
            onChange={(e) => setChoice({ ...choice, method: e.target.value as IoMethod })}
            className="rounded border border-slate-300 bg-white px-2 py-1"
          >
            {methods.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
        </label>
        {pool ? (
          <>
            <WorkersInput
              term="io_min_workers"
              testId="demo-io-min-workers"
              value={min}
              disabled={method !== "worker"}
              onChange={(v) => setChoice({ ...choice, min: clamp(v) })}
            />
            <WorkersInput
              term="io_max_workers"
              testId="demo-io-max-workers"
              value={max}
              disabled={method !== "worker"}
              onChange={(v) => setChoice({ ...choice, max: clamp(v) })}
            />
          </>
        ) : (
          <WorkersInput
            term="io_workers"
            testId="demo-io-workers"
            value={workers}
            disabled={method !== "worker"}
            onChange={(v) => setChoice({ ...choice, workers: clamp(v) })}
          />
        )}
        <button
          type="submit"
          data-testid="demo-restart"
          disabled={busy}
          className="rounded bg-slate-800 px-3 py-1.5 font-medium text-white hover:bg-slate-700 disabled:cursor-wait disabled:bg-slate-400"
        >
          {restart.isPending ? "Restarting…" : "Restart"}
        </button>
        <p className="text-xs text-slate-600" data-testid="demo-status" aria-live="polite">
          {restart.isPending ? (
            "Setting io parameters and restarting the server; sampling resumes when it is back."
          ) : restart.isError ? (
            <span className="text-red-700">Restart failed: {restart.error.message}</span>
          ) : restart.isSuccess ? (
            target.status === "up" ? (
              `Restarted: io_method is now ${current ?? "?"}.`
            ) : (
              "Restarted; reconnecting…"
            )
          ) : (
            `Now: io_method ${current ?? "?"}${current === "worker" && sizing ? `, ${pool ? `io_min_workers ${pool.min}, io_max_workers ${pool.max}` : `io_workers ${currentWorkers}`}` : ""}.`
          )}
        </p>
      </form>
    </Panel>
  );
}

function WorkersInput({
  term,
  testId,
  value,
  disabled,
  onChange,
}: {
  term: "io_workers" | "io_min_workers" | "io_max_workers";
  testId: string;
  value: number;
  disabled: boolean;
  onChange: (v: string) => void;
}) {
  return (
    <label className="flex flex-col gap-0.5">
      <span className="text-xs text-slate-500">
        <Term term={term}>{term}</Term> ({MIN_WORKERS}-{MAX_WORKERS})
      </span>
      <input
        data-testid={testId}
        type="number"
        min={MIN_WORKERS}
        max={MAX_WORKERS}
        value={value}
        disabled={disabled}
        onChange={(e) => onChange(e.target.value)}
        className="w-20 rounded border border-slate-300 px-2 py-1 disabled:bg-slate-100 disabled:text-slate-400"
      />
    </label>
  );
}
