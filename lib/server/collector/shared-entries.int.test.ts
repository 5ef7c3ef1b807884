// pg_stat_statements keeps one entry per statement, role and database, and
// stat_statements.sql sums a queryid over roles (and gives this role's share
// apart): the summed entry of one of inflight's statements also counts the
// calls of every other session that runs it (another inflight watching the
// same server, another target of this process naming the same database, the
// bench's bare runs of the file). What the collector charges itself for is
// its own calls, not the entry's delta.
import { readFileSync } from "node:fs";
import path from "node:path";
import type pg from "pg";
import { describe, expect, it } from "vitest";
import { connect, testPg, waitFor } from "../../../test/support/pg";
import { watching, type Watch } from "../../../test/support/watch";

const PG = testPg();
const ACTIVITY = readFileSync(path.resolve("sql/activity.sql"), "utf8");
/** The other session's calls are made in batches until they have cost the server this much (at most MAX_BATCHES). */
const OTHER_MS = 100;
const BATCH = 500;
const MAX_BATCHES = 40;

/** The collector's server ms for activity.sql so far, as the page and /metrics count it (charges and what it owed). */
function collectorMs(w: Watch): number {
  return (w.collector.cost.totals().find((t) => t.statement === "activity")?.seconds ?? 0) * 1000;
}

/** Server ms of activity.sql's calls by this client's role, from its own pg_stat_statements entry. */
async function roleMs(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ ms: number | null }>(
    "SELECT sum(total_exec_time) AS ms FROM pg_stat_statements WHERE userid = (SELECT oid FROM pg_roles WHERE rolname = current_user) AND query LIKE '%/* inflight:activity */%'",
  );
  return rows[0].ms ?? 0;
}

describe("a statement another session runs too", () => {
  it("charges the collector for its own calls of activity.sql, not for the other session's calls in the same entry", async () => {
    const w = await watching(PG.monitorUrl, 100);
    // The same file as another role in the same database: the same queryid, summed with inflight's by stat_statements.sql.
    const other = await connect(PG.superuserUrl, "shared-entry-other");
    try {
      await waitFor("activity.sql's cost from pg_stat_statements", () => w.collector.cost.exact("activity", Date.now()) !== null, 20_000);
      const before = collectorMs(w);
      const other0 = await roleMs(other);
      let otherMs = 0;
      for (let batch = 0; batch < MAX_BATCHES && otherMs < OTHER_MS; batch++) {
        for (let i = 0; i < BATCH; i++) await other.query(ACTIVITY, [[], []]);
        otherMs = (await roleMs(other)) - other0;
      }
      const ended = Date.now();
      // The collector's next read of pg_stat_statements has the other session's calls in its delta.
      await waitFor(
        "a read of pg_stat_statements after the other calls",
        () => (w.collector.health.get("statements").lastOkAt ?? 0) > ended,
        20_000,
      );
      const charged = collectorMs(w) - before;
      // Its own calls over those seconds at 10/s cost a few ms; the other session's, OTHER_MS and more.
      expect(otherMs).toBeGreaterThanOrEqual(OTHER_MS);
      expect(charged).toBeGreaterThan(0);
      expect(charged).toBeLessThan(otherMs / 4);
    } finally {
      await other.end();
      await w.stop();
    }
  }, 90_000);
});
