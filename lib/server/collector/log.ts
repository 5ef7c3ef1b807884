import "server-only";

/** The same log line again only after this long: a flapping target does not flood the log. */
const LOG_REPEAT_MS = 60_000;
const MAX_LINES = 200;

/**
 * A distinct line at most once a minute, with how often it came in
 * between: a target that flaps or keeps failing does not loop in the log,
 * and a failure that comes back later is still reported.
 */
export class ThrottledLog {
  private logged = new Map<string, { at: number; repeats: number }>();

  constructor(private readonly write: (line: string) => void) {}

  line(text: string): void {
    this.write(text);
  }

  once(text: string, now = Date.now()): void {
    const last = this.logged.get(text);
    if (last && now - last.at < LOG_REPEAT_MS) {
      last.repeats++;
      return;
    }
    if (this.logged.size >= MAX_LINES) this.logged.clear();
    this.logged.set(text, { at: now, repeats: 0 });
    this.write(last?.repeats ? `${text} (${last.repeats} more since the last report)` : text);
  }
}
