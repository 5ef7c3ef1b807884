// The sizing view's integration tests (issue 41): a collector writing its
// history to a temp folder, read back through the payload the route serves,
// and backends scanning cold until the view says what the test waits for.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type pg from "pg";
import { Collector } from "../../lib/server/collector/collector";
import { SampleStore } from "../../lib/server/history/samples";
import { HistoryStore } from "../../lib/server/history/store";
import { historyInput, sizingPayload } from "../../lib/server/history/sizing";
import type { SizingLever } from "../../lib/schemas/enums";
import { SizingResponse, type SizingLeverVerdict } from "../../lib/schemas/sizing";
import { evictFromPageCache, waitFor, TEST_COLLECTOR } from "./pg";

export interface Sized {
  collector: Collector;
  /** the sizing view of [from, now], as GET /api/targets/{id}/sizing answers it, once the rows up to now are on disk */
  sized(from: number): Promise<SizingResponse>;
  stop(): Promise<void>;
}

const OPTIONS = { retentionMs: 24 * 3_600_000, maxBytes: 256 * 1024 * 1024, log: () => undefined };

/** A collector on `url` with the history on, in a temp folder of its own. */
export async function sizedCollector(id: string, url: string, sampleMs = 50): Promise<Sized> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "inflight-sizing-"));
  const history = HistoryStore.open({ file: path.join(dir, "history.db"), ...OPTIONS });
  const samples = SampleStore.open({ file: path.join(dir, "history-samples.db"), ...OPTIONS });
  const collector = new Collector({
    id,
    name: id,
    demo: false,
    watchedSampleMs: sampleMs,
    idleSampleMs: 1000,
    windowMs: 10 * 60_000,
    ...TEST_COLLECTOR,
    history: history.forTarget(id),
    samples: samples.forTarget(id, () => history.keyFor(id)),
  });
  const unsubscribe = collector.feed.subscribe(() => undefined);
  collector.start(url);
  await waitFor(
    "collector up with its settings",
    () => collector.info().status === "up" && collector.window.settings.io_method && collector.window.lastTick(),
    20_000,
  );
  return {
    collector,
    async sized(from) {
      const to = Date.now();
      await samples.flush(to);
      const q = { target: id, from, to, redact: false };
      return SizingResponse.parse(sizingPayload(historyInput(history, samples, q), q, "history", null));
    },
    async stop() {
      unsubscribe();
      await collector.stop();
      await samples.close();
      history.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export const leverOf = (s: SizingResponse, lever: SizingLever): SizingLeverVerdict => {
  const found = s.levers.find((l) => l.lever === lever);
  if (!found) throw new Error(`no ${lever} in ${s.levers.map((l) => l.lever).join(", ")}`);
  return found;
};

/**
 * `clients` scanning their tables cold over and over (no parallel workers,
 * no synchronized scans), until `until` holds (bounded: waitFor's timeout).
 */
export async function scanUntil<T>(
  clients: pg.Client[],
  dataDir: string,
  tables: string[],
  what: string,
  until: () => Promise<T | null | false>,
  timeoutMs = 60_000,
): Promise<T> {
  let scanning = true;
  const loops = clients.map(async (c, i) => {
    const t = tables[i % tables.length];
    await c.query("SET max_parallel_workers_per_gather = 0; SET synchronize_seqscans = off");
    while (scanning) {
      await evictFromPageCache(c, dataDir, t);
      await c.query(`SELECT count(*) FROM ${t}`);
    }
  });
  try {
    return await waitFor(what, until, timeoutMs, 1000);
  } finally {
    scanning = false;
    await Promise.all(loops);
  }
}
