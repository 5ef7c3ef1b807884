// Headers every response of this site carries: the SSE streams served before
// Next (lib/server/http/direct-stream.ts) send these, and next.config.ts sets
// the same on what Next answers (spelled out there: it imports nothing of the
// project's; site-headers.test.ts holds the two equal). The
// Content-Security-Policy is set per response (lib/server/http/csp.ts).

export const SITE_HEADERS: Readonly<Record<string, string>> = {
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY",
  // why same-origin: next.config.ts
  "Referrer-Policy": "same-origin",
};
