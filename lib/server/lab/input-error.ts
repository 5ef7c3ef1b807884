import "server-only";

/** A request the lab refuses before it starts: a 400 naming the field, or one line in the terminal. */
export class LabInputError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
    this.name = "LabInputError";
  }
}

/**
 * By name, not instanceof: the route handlers and the lab (made at boot, in
 * instrumentation's module graph) have each their own copy of the class.
 */
export function isLabInputError(err: unknown): err is LabInputError {
  return err instanceof Error && err.name === "LabInputError" && typeof (err as LabInputError).field === "string";
}
