// Figure 3 opens 50 SSE streams on one server from one address (this
// process). A request gate that caps streams per client address (defaults
// ~20 per client, ~200 in all) is another engineer's change, not merged
// when this was written: when the server's configuration knows its
// settings (KNOWN_SETTINGS of lib/server/config/config.ts, whose unknown
// INFLIGHT_* names stop the server), the server with the viewers is started
// with caps above the figure's count; before that, nothing is set (setting
// a name the server does not know would stop it at start).

/** The cap settings the server knows, each set to at least `streams`. */
export function streamCapEnv(known: readonly string[], streams: number): Record<string, string> {
  const env: Record<string, string> = {};
  const cap = String(Math.max(streams, 1));
  if (known.includes("INFLIGHT_MAX_STREAMS")) env.INFLIGHT_MAX_STREAMS = cap;
  if (known.includes("INFLIGHT_MAX_STREAMS_PER_CLIENT")) env.INFLIGHT_MAX_STREAMS_PER_CLIENT = cap;
  return env;
}
