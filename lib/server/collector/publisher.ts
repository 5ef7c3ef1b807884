import "server-only";
import type { Feed } from "../payloads/feed";
import type { PayloadSource } from "../payloads/source";
import { findingsPayload, outagesPayload, queriesPayload } from "../payloads/window";

/** What the publisher reads of its collector: the payloads' source and its feed. */
export interface PublishSource extends PayloadSource {
  readonly feed: Feed;
}

const PUBLISH_EVERY_MS = 1000;
/** While reads are in flight (async or synchronous) a scan's progress moves faster than once a second. */
const PUBLISH_BUSY_MS = 500;
/** Findings cite figures that move every tick: their event at most this often. */
const FINDINGS_EVERY_MS = 500;

/**
 * When a collector's state events go out: ticks and io samples as they come
 * (their steps publish them), the target every second, query runs twice a
 * second while reads are in flight and only while someone watches, findings
 * when they changed, at most twice a second. The payloads are built by
 * lib/server/payloads alone.
 */
export class Publisher {
  private lastPublishAt = 0;
  private lastQueriesAt = 0;
  private lastFindingsAt = 0;
  private findingsDirty = false;

  constructor(
    private readonly c: PublishSource,
    private readonly settings: () => void,
  ) {}

  afterTick(now: number): void {
    const { feed, window } = this.c;
    this.findings(now);
    // Synchronous handles count too: under io_method = sync a scan's progress and read rate come from them.
    const aio = window.lastTick()?.aio;
    const readsInFlight = (aio?.inFlight ?? 0) + (aio?.sync ?? 0) > 0;
    if (feed.viewers > 0 && now - this.lastQueriesAt >= (readsInFlight ? PUBLISH_BUSY_MS : PUBLISH_EVERY_MS)) {
      this.lastQueriesAt = now;
      feed.publish("queries", queriesPayload(this.c));
    }
    if (now - this.lastPublishAt >= PUBLISH_EVERY_MS) {
      this.lastPublishAt = now;
      feed.publish("outages", outagesPayload(window));
      this.target();
    }
  }

  /** Every state event afresh: at start, and when a first viewer arrives. */
  everything(now: number): void {
    this.lastQueriesAt = now;
    this.c.feed.publish("queries", queriesPayload(this.c));
    this.c.feed.publish("outages", outagesPayload(this.c.window));
    this.settings();
    this.target();
    this.findings(now, true);
  }

  findings(now: number, force = false): void {
    this.findingsDirty ||= this.c.window.refreshFindings(now, this.c.info());
    if (force || (this.findingsDirty && now - this.lastFindingsAt >= FINDINGS_EVERY_MS)) {
      this.lastFindingsAt = now;
      this.findingsDirty = false;
      this.c.feed.publish("findings", findingsPayload(this.c));
    }
  }

  target(): void {
    this.c.feed.publish("target", this.c.info());
  }
}
