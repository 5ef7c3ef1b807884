import "server-only";

/** A bad setting: its message names the setting and the problem, never a secret. */
export class ConfigError extends Error {
  constructor(
    readonly setting: string,
    problem: string,
  ) {
    super(`${setting}: ${problem}`);
    this.name = "ConfigError";
  }
}
