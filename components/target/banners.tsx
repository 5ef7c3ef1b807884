import type { Banner } from "@/lib/view/settings";

const TONE_CLASSES = {
  info: "border-blue-200 bg-blue-50 text-blue-900",
  warn: "border-amber-300 bg-amber-50 text-amber-900",
  error: "border-red-300 bg-red-50 text-red-900",
} as const satisfies Record<Banner["tone"], string>;

export function Banners({ items }: { items: readonly Banner[] }) {
  if (!items.length) return null;
  return (
    <div className="space-y-2">
      {items.map((b) => (
        <div
          key={b.id}
          role={b.tone === "info" ? "note" : "alert"}
          data-testid={`banner-${b.id}`}
          className={`rounded-lg border px-3 py-2 text-sm ${TONE_CLASSES[b.tone]}`}
        >
          <p className="font-semibold">{b.title}</p>
          <p>{b.text}</p>
          {b.code ? <pre className="mt-1 overflow-x-auto rounded bg-white/70 px-2 py-1 font-mono text-xs">{b.code}</pre> : null}
        </div>
      ))}
    </div>
  );
}
