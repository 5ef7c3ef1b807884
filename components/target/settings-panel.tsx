"use client";
import { memo } from "react";
import type { Check } from "@/lib/schemas/settings";
import { useChannel } from "@/lib/client/hooks";
import { reloadNote, restartNote } from "@/lib/view/marks";
import { orderChecks, settingRows } from "@/lib/view/settings";
import { Badge, type Tone } from "@/components/ui/badge";
import { Panel } from "@/components/ui/panel";
import { Glossed, Term } from "@/components/ui/term";
import { TERMS, type Term as TermId } from "@/lib/view/glossary";

const isTerm = (name: string): name is TermId => (TERMS as readonly string[]).includes(name);

const CHECK_TONES = { pass: "ok", act: "bad", note: "warn", fail: "bad", unknown: "muted", info: "info" } as const satisfies Record<
  Check["status"],
  Tone
>;

export const SettingsPanel = memo(function SettingsPanel() {
  const { settings, checks, restarts, reloads } = useChannel("settings");
  const rows = settingRows(settings);
  return (
    <Panel
      wide
      title="Settings & checks"
      subtitle="pg_settings at once after a reload (a new pg_conf_load_time(), seen every sample) or a restart (a new pg_postmaster_start_time()), and every 30 s"
    >
      <div className="grid gap-4 lg:grid-cols-2">
        <div data-testid="settings-panel" className="min-w-0 overflow-x-auto">
          {rows.length === 0 ? (
            <p className="text-sm text-slate-500">Settings not read yet.</p>
          ) : (
            <table className="w-full text-sm">
              <thead>
                <tr className="border-b border-slate-200 text-left text-[11px] uppercase tracking-wide text-slate-500">
                  <th className="py-1 pr-2 font-medium">setting</th>
                  <th className="py-1 pr-2 font-medium">value</th>
                  <th className="py-1 font-medium">source</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((s) => (
                  <tr
                    key={s.name}
                    data-testid={`setting-${s.name}`}
                    data-value={s.setting}
                    data-pending={s.pendingRestart}
                    data-unused={s.note?.startsWith("unused") ?? false}
                    className="border-b border-slate-100 last:border-0"
                  >
                    <td className="py-1 pr-2 font-mono text-xs">{isTerm(s.name) ? <Term term={s.name}>{s.name}</Term> : s.name}</td>
                    <td className="py-1 pr-2 tabular-nums">
                      {s.display}
                      {s.pendingRestart ? (
                        <span className="ml-1">
                          <Badge tone="warn" title="changed since the server started: takes effect at the next restart">
                            pending restart
                          </Badge>
                        </span>
                      ) : null}
                      {s.note ? (
                        <span className="ml-1 text-xs text-slate-500" data-testid={`setting-note-${s.name}`}>
                          ({s.note})
                        </span>
                      ) : null}
                    </td>
                    <td className="py-1 text-xs text-slate-500">{s.source}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
        <div className="min-w-0 space-y-3">
          <ul data-testid="checks-panel" className="space-y-1.5">
            {checks.length === 0 ? <li className="text-sm text-slate-500">No checks yet.</li> : null}
            {orderChecks(checks).map((c) => (
              <li key={c.id} data-testid={`check-${c.id}`} data-status={c.status} className="text-sm">
                <Badge tone={CHECK_TONES[c.status]}>{c.status}</Badge> <span className="font-medium">{c.title}</span>
                <p className="text-xs text-slate-600">
                  <Glossed text={c.message} />
                </p>
              </li>
            ))}
          </ul>
          <div>
            <h3 className="text-xs font-semibold uppercase tracking-wide text-slate-500">Restarts in the window</h3>
            {restarts.length === 0 ? (
              <p className="text-sm text-slate-500">None since inflight started watching.</p>
            ) : (
              <ul className="space-y-0.5 text-sm">
                {[...restarts].reverse().map((r) => (
                  <li key={r.at} data-testid="restart-note" className="tabular-nums">
                    {restartNote(r)}
                  </li>
                ))}
              </ul>
            )}
          </div>
          {reloads.length ? (
            <div>
              <h3 className="text-xs font-semibold uppercase tracking-wide text-slate-500">Reloads that changed a setting</h3>
              <ul className="space-y-0.5 text-sm">
                {[...reloads].reverse().map((r) => (
                  <li key={r.at} data-testid="reload-note" className="tabular-nums">
                    {reloadNote(r)}
                  </li>
                ))}
              </ul>
            </div>
          ) : null}
        </div>
      </div>
    </Panel>
  );
});
