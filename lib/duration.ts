// Durations as people type them ("15m", "90s", "1h", "7d", "500ms"), shared
// by the configuration and the routes' query parameters.

const DURATION_UNITS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** "15m", "90s", "1h", "7d", "500ms" -> ms; null when not a positive duration. */
export function parseDuration(text: string): number | null {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)\s*$/.exec(text);
  if (!match) return null;
  const ms = Number(match[1]) * DURATION_UNITS[match[2] as keyof typeof DURATION_UNITS];
  return Number.isFinite(ms) && ms > 0 ? Math.round(ms) : null;
}
