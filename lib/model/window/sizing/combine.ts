// io_combine_limit against io_max_combine_limit (issue 41): above it,
// PostgreSQL clamps it silently at run time while pg_settings shows the
// value set (PG18-FACTS.md). Lowering it to the ceiling says what is in
// force; raising the ceiling instead takes a restart.
import type { SizingLeverVerdict } from "../../../schemas/sizing";
import { noChange, settingNum, settingsAt, type SizingInput } from "./input";

export function combineVerdict(input: SizingInput): SizingLeverVerdict {
  const settings = settingsAt(input, input.to);
  const limit = settingNum(settings, "io_combine_limit");
  const ceiling = settingNum(settings, "io_max_combine_limit");
  const show = (name: string) => settings?.[name]?.display ?? settings?.[name]?.setting ?? "–";
  if (limit === null || ceiling === null)
    return noChange(
      "io_combine_limit",
      "unknown",
      limit === null ? null : show("io_combine_limit"),
      "io_combine_limit or io_max_combine_limit was not read for this range",
    );
  const figures = [
    {
      text: `io_combine_limit ${show("io_combine_limit")}, io_max_combine_limit ${show("io_max_combine_limit")}`,
      value: Math.min(limit, ceiling),
      spanMs: null,
    },
  ];
  if (limit > ceiling) {
    const reason = `io_combine_limit is above io_max_combine_limit: PostgreSQL uses ${show("io_max_combine_limit")} without a word; set io_combine_limit to it, or raise io_max_combine_limit (a restart)`;
    return {
      lever: "io_combine_limit",
      verdict: "lower",
      now: show("io_combine_limit"),
      value: show("io_max_combine_limit"),
      applies: "reload",
      headline: `lower io_combine_limit ${show("io_combine_limit")} -> ${show("io_max_combine_limit")}: it is clamped silently (a reload applies it)`,
      reason,
      figures,
      statements: [],
      lab: [],
    };
  }
  return noChange(
    "io_combine_limit",
    "leave",
    show("io_combine_limit"),
    `io_combine_limit is within io_max_combine_limit: applied as set`,
    { figures },
  );
}
