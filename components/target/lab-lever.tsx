"use client";
import { useState } from "react";
import { LAB_CONCURRENCY, LEVERS, type LabPreset } from "@/lib/schemas/levers";
import type { IoMethod, LabLever } from "@/lib/schemas/enums";
import { splitValues, type LabChoice } from "@/lib/view/lab";

const INPUT = "rounded border border-slate-300 bg-white px-2 py-1";
const HINT = "text-xs text-slate-500";

/** The lab's lever: a preset, or the lever, its values (io_method: the build's methods as checkboxes) and the sessions at once. */
export function LabLeverFields({
  levers,
  presets,
  offered,
  choice,
  onChange,
}: {
  levers: LabLever[];
  presets: readonly LabPreset[];
  offered: IoMethod[];
  choice: LabChoice;
  onChange(c: LabChoice): void;
}) {
  const preset =
    presets.find((p) => p.lever === choice.lever && p.concurrency === choice.concurrency && p.values.join() === choice.values.join())?.id ??
    "";
  // The values' text is the user's while they type ("1," is on its way to "1, 3"); a preset or a lever picked writes it anew.
  const [picks, setPicks] = useState(0);
  const pick = (c: LabChoice) => {
    setPicks((n) => n + 1);
    onChange(c);
  };
  const pickLever = (lever: LabLever) => {
    const first = presets.find((p) => p.lever === lever);
    pick({ lever, values: lever === "io_method" ? offered : (first?.values ?? []), concurrency: LEVERS[lever].concurrency });
  };
  return (
    <>
      <label className="flex flex-col gap-0.5">
        <span className={HINT}>preset</span>
        <select
          data-testid="lab-preset"
          value={preset}
          onChange={(e) => {
            const p = presets.find((x) => x.id === e.target.value);
            pick(p ? { lever: p.lever, values: p.values, concurrency: p.concurrency } : choice);
          }}
          className={INPUT}
        >
          {presets.map((p) => (
            <option key={p.id} value={p.id}>
              {p.label}
            </option>
          ))}
          <option value="">my own values</option>
        </select>
      </label>
      <label className="flex flex-col gap-0.5">
        <span className={HINT}>lever ({LEVERS[choice.lever].applied === "restart" ? "a restart per run" : "a reload, no restart"})</span>
        <select data-testid="lab-lever" value={choice.lever} onChange={(e) => pickLever(e.target.value as LabLever)} className={INPUT}>
          {levers.map((l) => (
            <option key={l} value={l}>
              {l}
            </option>
          ))}
        </select>
      </label>
      {choice.lever === "io_method" ? (
        <fieldset className="flex flex-col gap-0.5">
          <legend className={HINT}>io_methods</legend>
          <div className="flex gap-2 py-1">
            {offered.map((m) => (
              <label key={m} className="flex items-center gap-1">
                <input
                  type="checkbox"
                  data-testid={`lab-method-${m}`}
                  checked={choice.values.includes(m)}
                  onChange={(e) =>
                    onChange({
                      ...choice,
                      values: e.target.checked
                        ? offered.filter((o) => o === m || choice.values.includes(o))
                        : choice.values.filter((x) => x !== m),
                    })
                  }
                />
                {m}
              </label>
            ))}
          </div>
        </fieldset>
      ) : (
        <label className="flex flex-col gap-0.5">
          <span className={HINT}>
            values, the first the baseline ({LEVERS[choice.lever].bounds.min}-{LEVERS[choice.lever].bounds.max})
          </span>
          <input
            key={picks}
            data-testid="lab-values"
            defaultValue={choice.values.join(", ")}
            onChange={(e) => onChange({ ...choice, values: splitValues(e.target.value) })}
            className={`w-32 ${INPUT}`}
          />
        </label>
      )}
      <label className="flex flex-col gap-0.5">
        <span
          className={HINT}
          title="the io workers are a queue only behind several scans: 4 at once by default for their levers, 1 otherwise"
        >
          sessions at once ({LAB_CONCURRENCY.min}-{LAB_CONCURRENCY.max}; default {LEVERS[choice.lever].concurrency})
        </span>
        <input
          data-testid="lab-concurrency"
          type="number"
          min={LAB_CONCURRENCY.min}
          max={LAB_CONCURRENCY.max}
          value={choice.concurrency}
          onChange={(e) =>
            onChange({
              ...choice,
              concurrency: Math.min(LAB_CONCURRENCY.max, Math.max(LAB_CONCURRENCY.min, Math.round(Number(e.target.value) || 1))),
            })
          }
          className={`w-20 ${INPUT}`}
        />
      </label>
    </>
  );
}
