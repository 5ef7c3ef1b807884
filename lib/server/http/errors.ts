import "server-only";

/** The one table from error code to HTTP status, for every JSON error inflight answers. */
export const ERROR_STATUS = {
  bad_request: 400,
  unauthorized: 401,
  /** a state-changing request from another origin (or none the browser vouches for) */
  cross_origin: 403,
  not_found: 404,
  conflict: 409,
  length_required: 411,
  too_large: 413,
  unsupported_media_type: 415,
  /** a Host this server does not answer to (DNS rebinding) */
  wrong_host: 421,
  too_many_requests: 429,
  internal: 500,
  not_ready: 503,
  /** a part that is off (the history file): the message says why */
  unavailable: 503,
  /** the server's own capacity (open streams) is used up */
  busy: 503,
} as const satisfies Record<string, number>;
export type ErrorCode = keyof typeof ERROR_STATUS;
