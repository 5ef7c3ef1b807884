// How the CLI fails, and what each failure's exit code is: the caller
// (test/support/iouring.ts) skips on EXIT_UNAVAILABLE and fails on the rest.

export const EXIT_ERROR = 1;
export const EXIT_USAGE = 2;
export const EXIT_UNAVAILABLE = 3;

/** The machine cannot do this; exit 3 with one line: why, and what would fix it. */
export class Unavailable extends Error {}
export class UsageError extends Error {}
