import "server-only";
import type { IncomingMessage, ServerResponse } from "node:http";
import { SITE_HEADERS } from "../../site-headers";
import { openStream, type StreamSink } from "../payloads/stream";
import type { Runtime } from "../runtime/runtime";
import { checkAccess } from "./access";
import { AUTH_COOKIE } from "./auth";
import { contentSecurityPolicy } from "./csp";
import { ERROR_STATUS } from "./errors";
import { CLIENT_HEADER } from "./gate";
import { HttpError, errorBody } from "./route";
import { SSE_HEADERS, admitStream } from "./stream-request";

// The SSE streams, served by scripts/start.mjs's own HTTP server before Next
// sees the request: the same gate (access.ts), parameters and caps
// (stream-request.ts) and the same bytes (payloads/stream.ts) as the route
// app/api/targets/[id]/stream, which serves them under `next dev`, written
// to the socket. Through Next, every stream opened paid for its request
// pipeline (routing, the proxy, request objects, tracing, async context:
// ~15 ms of the event loop here) and every event for web-stream plumbing,
// a few promises per viewer; a crowd of viewers, or every page reconnecting
// after a restart, held up the collectors' ticks (BENCHMARKS.md).

const STREAM_PATH = /^\/api\/targets\/([^/]+)\/stream$/;

export type StreamRuntime = Pick<Runtime, "config" | "tokenChecks" | "collectors" | "streams">;

/** Serves `req` if it asks for a stream (true), whatever the answer; false: not a stream, Next's to serve. */
export async function serveStream(runtime: StreamRuntime, req: IncomingMessage, res: ServerResponse, client: string): Promise<boolean> {
  const [pathname, search = ""] = (req.url ?? "").split("?", 2);
  const match = req.method === "GET" ? STREAM_PATH.exec(pathname) : null;
  if (!match) return false;
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers))
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
  headers.set(CLIENT_HEADER, client);
  const base = { ...SITE_HEADERS, "Content-Security-Policy": contentSecurityPolicy(null, runtime.config.dev) };
  try {
    const access = await checkAccess(runtime, {
      method: "GET",
      pathname,
      headers,
      cookie: cookieNamed(headers.get("cookie"), AUTH_COOKIE),
    });
    // An API path is never sent to sign in: without the token it is a 401 (access.ts).
    if (access)
      throw access === "sign-in"
        ? new HttpError("unauthorized", "sign in")
        : new HttpError(access.code, access.message, access.field, access.headers);
    const ask = {
      params: { id: decodeURIComponent(match[1]) },
      query: Object.fromEntries(new URLSearchParams(search)),
      lastEventId: headers.get("last-event-id"),
      client,
    };
    const { collector, since, release } = admitStream(runtime, ask);
    // Gone while its token was checked: its place is freed at once.
    if (res.destroyed) return (release(), true);
    res.writeHead(200, { ...base, ...SSE_HEADERS });
    res.on("close", openStream(collector, since, socketSink(res), release));
  } catch (err) {
    if (!(err instanceof HttpError)) console.error("[inflight] stream failed:", (err as Error)?.stack ?? err);
    const e = err instanceof HttpError ? err : new HttpError("internal", "internal error");
    res
      .writeHead(ERROR_STATUS[e.code], { ...base, "Content-Type": "application/json", "Cache-Control": "no-store", ...e.headers })
      .end(JSON.stringify(errorBody(e.code, e.message, e.field)));
  }
  return true;
}

/** A viewer's socket: the events one turn of the event loop publishes (a tick, and the state it
 * changed) go out in one write. */
function socketSink(res: ServerResponse): StreamSink {
  let corked = false;
  const uncork = () => {
    corked = false;
    res.uncork();
  };
  return {
    write(chunk) {
      if (!corked) {
        corked = true;
        res.cork();
        process.nextTick(uncork);
      }
      res.write(chunk);
    },
    queuedBytes: () => res.writableLength,
    end: () => res.end(),
  };
}

/** One cookie's value from a Cookie header, undefined when it is not there. */
export function cookieNamed(header: string | null, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return decoded(part.slice(eq + 1).trim());
  }
  return undefined;
}

/** As Next reads a cookie: percent-decoded where that is valid, else as sent. */
function decoded(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
