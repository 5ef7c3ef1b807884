import "server-only";
import { randomBytes } from "node:crypto";

// The Content-Security-Policy of every response. Pages get a fresh nonce per
// request: Next reads it from the request's own CSP header while it renders
// and puts it on each script it emits (its inline hydration data included),
// so no inline script runs without it ('unsafe-inline' is not needed for
// scripts). Styles keep 'unsafe-inline': the charts set style attributes,
// which a nonce cannot cover.

export function newNonce(): string {
  return randomBytes(16).toString("base64");
}

/** `dev`: `next dev`, where React's tooling needs eval; never in production. */
export function contentSecurityPolicy(nonce: string | null, dev: boolean): string {
  return [
    "default-src 'self'",
    `script-src 'self'${nonce ? ` 'nonce-${nonce}'` : ""}${dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}
