// Headers every response of this site carries: next.config.ts sets them on
// what Next answers, and the SSE streams served before Next
// (lib/server/http/direct-stream.ts) send them too. The Content-Security-Policy
// is set per response (lib/server/http/csp.ts).

export const SITE_HEADERS: Readonly<Record<string, string>> = {
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY",
  // Same-origin requests keep their Origin (a "no-referrer" policy makes the
  // browser send "Origin: null" on the page's own POSTs); nothing is sent to
  // other sites.
  "Referrer-Policy": "same-origin",
};
