// Human formatting for the dashboard. Sizes use PostgreSQL's convention:
// kB, MB, GB are powers of 1024, as pg_size_pretty and pg_settings print them.

const SIZE_UNITS = ["B", "kB", "MB", "GB", "TB"] as const;

/** 8 kB, 128 kB, 1.5 MB, 3 GB: an exact multiple of a unit as a whole
 * number (as pg_settings values read), anything else to 2-3 figures. */
export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined || !Number.isFinite(bytes)) return "–";
  let value = Math.abs(bytes);
  let unit = 0;
  while (value >= 1024 && unit < SIZE_UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  const sign = bytes < 0 ? "-" : "";
  if (unit === 0 || Number.isInteger(value)) return `${sign}${Math.round(value)} ${SIZE_UNITS[unit]}`;
  return `${sign}${value < 10 ? value.toFixed(1) : Math.round(value)} ${SIZE_UNITS[unit]}`;
}

/** 850 ms, 1.2 s, 42 s, 3 min 12 s, 2 h 5 min, 3 d 4 h */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return "–";
  const sign = ms < 0 ? "-" : "";
  const a = Math.abs(ms);
  if (a < 1) return `${sign}${a === 0 ? 0 : a.toFixed(2)} ms`;
  if (a < 1000) return `${sign}${a < 10 ? a.toFixed(1) : Math.round(a)} ms`;
  const s = a / 1000;
  if (s < 10) return `${sign}${s.toFixed(1)} s`;
  if (s < 60) return `${sign}${Math.floor(s)} s`;
  const total = Math.floor(s);
  const d = Math.floor(total / 86_400);
  const h = Math.floor((total % 86_400) / 3600);
  const m = Math.floor((total % 3600) / 60);
  const sec = total % 60;
  if (d > 0) return `${sign}${d} d${h ? ` ${h} h` : ""}`;
  if (h > 0) return `${sign}${h} h${m ? ` ${m} min` : ""}`;
  return `${sign}${m} min${sec ? ` ${sec} s` : ""}`;
}

const pad = (n: number) => String(n).padStart(2, "0");

/** Local wall-clock time, HH:MM:SS (24 h). */
export function formatClock(ms: number): string {
  if (!Number.isFinite(ms)) return "";
  const d = new Date(ms);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** 1,234 / 12.5 / 0.25: counts and rates, compact but exact enough to read. */
export function formatNumber(n: number | null | undefined, digits = 1): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return "–";
  const a = Math.abs(n);
  if (a >= 1_000_000) return `${(n / 1_000_000).toFixed(1)} M`;
  if (a >= 10_000) return `${(n / 1000).toFixed(a >= 100_000 ? 0 : 1)} k`;
  // Not toLocaleString: axis tick formatters call this often, and Intl is slow.
  if (Number.isInteger(n)) return groupThousands(n);
  if (a >= 100) return groupThousands(Math.round(n));
  return n.toFixed(a < 1 ? Math.max(digits, 2) : digits);
}

function groupThousands(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** 0.423 -> "42%"; null -> "–" */
export function formatShare(share: number | null | undefined): string {
  if (share === null || share === undefined || !Number.isFinite(share)) return "–";
  const p = share * 100;
  if (p > 0 && p < 1) return "<1%";
  return `${Math.round(p)}%`;
}

/** "12 s ago" / "in 3 s": how long ago `then` was at `now`. */
export function formatAgo(then: number, now: number): string {
  const d = now - then;
  if (Math.abs(d) < 1000) return "just now";
  return d > 0 ? `${formatDuration(d)} ago` : `in ${formatDuration(-d)}`;
}

/** The part of a PostgreSQL version a banner needs: "16.4" -> 16. */
export function majorVersion(serverVersion: string | null, serverVersionNum: number | null): number | null {
  if (serverVersionNum !== null)
    return serverVersionNum >= 100_000 ? Math.floor(serverVersionNum / 10_000) : Math.floor(serverVersionNum / 100) / 100;
  const m = serverVersion ? /^(\d+)/.exec(serverVersion) : null;
  return m ? Number(m[1]) : null;
}

/**
 * Code-point order of two identifiers (setting, statement and query-id
 * names), for a sort's tie-break. Not localeCompare: in Chromium here each
 * call made a collator, 44.6 µs against 0.6 µs for a reused Intl.Collator,
 * and a 20 s profile of the demo's page (source-mapped) put 164 ms, 0.8 % of
 * a core, in a comparator calling it (the sorts run on each target event).
 */
export function byCodePoint(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
