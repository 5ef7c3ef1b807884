"use client";
import { useCallback, useEffect, useMemo, useState } from "react";
import { LiveContext, useLive, useStable, useTargetLive } from "@/lib/client/hooks";
import { samePanelTarget, type PanelTarget } from "@/lib/client/panel-target";
import { banners } from "@/lib/view/settings";
import { combineLimitKb } from "@/lib/view/throughput";
import { VIEW_SPANS, type TimeDomain, type ViewSpanId } from "@/lib/view/time";
import { formatViewParams, type ViewParams } from "@/lib/view/url";
import { frameNewest, liveDomain, unzoom, zoomInto, type FrozenView } from "@/lib/view/view";
import { freeze } from "@/lib/client/freeze";
import type { LiveStore } from "@/lib/client/store";
import { useHistory } from "@/lib/client/use-history";
import { InFlightPanel } from "@/components/charts/inflight-chart";
import { RunTimelinePanel } from "@/components/charts/run-timeline";
import { ThroughputPanel } from "@/components/charts/throughput-chart";
import { ViewContext, type ViewState } from "@/components/charts/time-view";
import { PageClock } from "@/components/ui/page-clock";
import { MajorContext } from "@/components/ui/term";
import { majorOf } from "@/lib/model/window/major";
import { WaitsPanel } from "@/components/charts/waits-chart";
import { WorkersPanel } from "@/components/charts/workers-chart";
import { Banners } from "./banners";
import { ComparePanel } from "./compare-panel";
import { LabPanel } from "./lab-panel";
import { DemoControls } from "./demo-controls";
import { FindingsList } from "./findings-list";
import { HistoryFindings } from "./history-findings";
import { QueriesPanel } from "./queries-panel";
import { SettingsPanel } from "./settings-panel";
import { StatementsPanel } from "./statements-panel";
import { TargetHeader } from "./target-header";
import { FrozenBar, ViewControls, type ViewActions } from "./view-controls";

const DEFAULT_SPAN: ViewSpanId = "5m";
const spanMsOf = (span: ViewSpanId) => VIEW_SPANS.find((s) => s.id === span)?.ms ?? null;

/**
 * What the page shows (a live span, or a frozen copy) and the selected run,
 * kept in the URL as they change. `initial` comes from the URL: a range in
 * it is frozen once the window has loaded.
 */
function useViewSelection(id: string, store: LiveStore, loaded: boolean, initial: ViewParams) {
  const [span, setSpan] = useState<ViewSpanId>(initial.view ?? DEFAULT_SPAN);
  const [frozen, setFrozen] = useState<FrozenView | null>(null);
  const [pendingRange, setPendingRange] = useState<TimeDomain | null>(initial.range);
  const [selected, setSelected] = useState<string | null>(initial.run);

  // The linked range, frozen in the first render that has the window (no live flash before it).
  if (pendingRange && loaded) {
    setPendingRange(null);
    setFrozen(freeze(store, pendingRange, Date.now()));
  }

  const zoom = useCallback(
    (range: TimeDomain) => setFrozen((f) => (f ? zoomInto(f, range) : { ...freeze(store, range, Date.now()), zoomed: true })),
    [store],
  );
  const actions: ViewActions = useMemo(
    () => ({
      onSpan: (s) => {
        setSpan(s);
        setFrozen(null);
      },
      onFreeze: () => {
        const target = store.get("target");
        const domain = liveDomain(store.currentFrame(), spanMsOf(span), target?.windowMs ?? 15 * 60_000, target?.statusSince ?? 0);
        setFrozen(freeze(store, domain, Date.now()));
      },
      onRange: (range) => setFrozen(freeze(store, range, Date.now())),
      onHistory: (ms) => {
        const newest = frameNewest(store.currentFrame(), Date.now());
        setFrozen(freeze(store, { from: newest - ms, to: newest }, Date.now()));
      },
      onLive: () => setFrozen(null),
      onResetZoom: () => setFrozen((f) => f && unzoom(f)),
    }),
    [store, span],
  );

  const from = frozen?.from;
  const to = frozen?.to;
  useEffect(() => {
    if (pendingRange) return; // not applied yet: keep the link as it came
    const query = formatViewParams({ view: span, range: from !== undefined && to !== undefined ? { from, to } : null, run: selected });
    const url = `${window.location.pathname}${query ? `?${query}` : ""}`;
    if (url !== `${window.location.pathname}${window.location.search}`) window.history.replaceState(null, "", url);
  }, [span, from, to, selected, pendingRange]);

  const history = useHistory(id, frozen, setFrozen);
  const view: ViewState = useMemo(() => ({ spanMs: spanMsOf(span), frozen, zoom }), [span, frozen, zoom]);
  return { span, frozen, history, view, actions, selected, setSelected };
}

/** One target, live. Mount with key={id}: the store belongs to one target. */
export function TargetView({ id, initial }: { id: string; initial: ViewParams }) {
  const live = useTargetLive(id);
  const target = useLive(live.store, "target");
  // The panels' view of it: the same object while only the header's per-second counters change.
  const steady = useStable<PanelTarget | null>(target, (a, b) => a !== null && b !== null && samePanelTarget(a, b));
  const { settings } = useLive(live.store, "settings");
  const { span, frozen, history, view, actions, selected, setSelected } = useViewSelection(id, live.store, target !== null, initial);

  if (!target) {
    return (
      <main className="p-6 text-sm text-slate-600" data-testid="target-loading">
        {live.status === "error" ? (
          <div role="alert" className="space-y-2">
            <p className="text-red-800">
              Could not load the window of {id}: {live.error}
            </p>
            <button type="button" onClick={live.reload} className="rounded bg-slate-800 px-3 py-1 text-white">
              Retry
            </button>
          </div>
        ) : (
          <p>Loading the window of {id}…</p>
        )}
      </main>
    );
  }

  const panel: PanelTarget = steady ?? target;
  return (
    <LiveContext value={live.store}>
      <MajorContext value={majorOf(target.serverVersionNum)}>
        <ViewContext value={view}>
          <PageClock>
            <main className="mx-auto max-w-[1920px] space-y-3 p-3">
              <TargetHeader
                target={target}
                controls={<ViewControls id={id} windowMs={target.windowMs} span={span} frozen={frozen} actions={actions} />}
              />
              {frozen?.history && frozen.history.seconds > 0 ? (
                <HistoryFindings range={frozen} history={frozen.history} onSelectRun={setSelected} />
              ) : (
                <FindingsList targetId={id} onSelectRun={setSelected} />
              )}
              {frozen ? <FrozenBar frozen={frozen} history={history} actions={actions} /> : null}
              <Banners items={banners(target, settings)} />
              <div className="grid grid-cols-1 gap-3 xl:grid-cols-2">
                <InFlightPanel target={panel} />
                <WorkersPanel target={panel} />
                <ThroughputPanel target={panel} limitKb={combineLimitKb(settings)} />
                <WaitsPanel target={panel} />
                <QueriesPanel target={panel} selected={selected} onSelect={setSelected} />
                {selected ? <RunTimelinePanel runId={selected} onClose={() => setSelected(null)} /> : null}
                <StatementsPanel target={panel} />
                <SettingsPanel />
                <ComparePanel id={id} />
                {target.demo ? <DemoControls target={panel} /> : null}
                {target.demo ? <LabPanel target={panel} /> : null}
              </div>
            </main>
          </PageClock>
        </ViewContext>
      </MajorContext>
    </LiveContext>
  );
}
