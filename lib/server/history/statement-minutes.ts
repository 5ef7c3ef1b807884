import "server-only";
import type Database from "better-sqlite3";
import type { StatementDelta } from "../../model/compare/deltas";
import { UPSERT_MINUTE, UPSERT_TEXT } from "./sql";

// The pg_stat_statements deltas a history keeps: summed per queryid and minute, each statement's text touched once a minute.

const MINUTE = 60_000;

export class StatementMinutes {
  /** per history and queryid: the minute its text row was last touched */
  private textMinute = new Map<string, number>();

  /** One transaction: the deltas read at `t` from the server started at `epoch`, added to their minute. */
  write(
    db: Database.Database,
    history: string,
    t: number,
    epoch: number,
    deltas: readonly StatementDelta[],
    textOf: (queryid: string) => string | undefined,
  ): void {
    const minute = Math.floor(t / MINUTE) * MINUTE;
    const upsert = db.prepare(UPSERT_MINUTE);
    const text = db.prepare(UPSERT_TEXT);
    db.transaction(() => {
      for (const d of deltas) {
        upsert.run({
          history,
          minute,
          epoch,
          queryid: d.queryid,
          calls: d.calls,
          execMs: d.execMs,
          execSq: d.execSq,
          readMs: d.readMs,
          blksRead: d.blksRead,
          blksHit: d.blksHit,
        });
        const key = `${history}\u0000${d.queryid}`;
        const query = textOf(d.queryid);
        if (this.textMinute.get(key) === minute || !query) continue;
        text.run(history, d.queryid, query, minute);
        this.textMinute.set(key, minute);
      }
    })();
    if (this.textMinute.size > 50_000) this.textMinute.clear();
  }
}
