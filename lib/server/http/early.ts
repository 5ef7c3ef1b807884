import "server-only";
import type { IncomingHttpHeaders } from "node:http";
import type { Config } from "../runtime/config";
import { hostServed } from "../runtime/hosts";
import { contentSecurityPolicy } from "./csp";
import { ERROR_STATUS } from "./errors";
import type { StreamLimits } from "./streams";

// A stream the caps would refuse anyway, answered by scripts/start.mjs
// before Next sees the request. Next's pipeline (routing, the proxy, the
// route) costs a couple of milliseconds of the event loop per request; a
// flood of stream requests past the caps would otherwise hold up the
// viewers already connected and the collectors' own timers. Only the Host
// is checked first: the answer (busy, retry later) says nothing about the
// token, so the gate's other checks may come after it. Anything else goes on
// to Next, where the stream route admits or refuses again.

const STREAM_PATH = /^\/api\/targets\/[^/?#]+\/stream(?:\?|$)/;

export interface EarlyAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export function earlyRefusal(config: Config, streams: StreamLimits, req: { method?: string; url?: string; headers: IncomingHttpHeaders }, client: string): EarlyAnswer | null {
  if (req.method !== "GET" || !STREAM_PATH.test(req.url ?? "")) return null;
  if (!hostServed(req.headers.host ?? null, config.servedHosts, config.port)) return null;
  const refusal = streams.full(client);
  if (!refusal) return null;
  streams.refused[refusal.refused]++;
  const { code, message } = streams.error(refusal);
  return {
    status: ERROR_STATUS[code],
    headers: {
      "Content-Type": "application/json",
      "Cache-Control": "no-store",
      "Retry-After": String(refusal.retryAfterS),
      "Content-Security-Policy": contentSecurityPolicy(null, config.dev),
      "X-Content-Type-Options": "nosniff",
    },
    body: JSON.stringify({ error: { code, message } }),
  };
}
