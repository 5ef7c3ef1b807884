import "server-only";
import type { Feed } from "../payloads/feed";
import type { PayloadSource } from "../payloads/source";
import { diffQueries, sentQueries, type SentQueries } from "../../model/window/query-changes";
import { findingsPayload, outagesPayload, queriesPayload, settingsPayload } from "../payloads/window";

/** What the publisher reads of its collector: the payloads' source and its feed. */
export interface PublishSource extends PayloadSource {
  readonly feed: Feed;
}

const PUBLISH_EVERY_MS = 1000;
/** While reads are in flight (async or synchronous) a scan's progress moves faster than once a second. */
const PUBLISH_BUSY_MS = 500;
/** Findings cite figures that move every tick: a change of theirs goes out at most this often. */
const FINDINGS_EVERY_MS = 500;

/**
 * When a collector's state events go out: ticks, io samples and the settings
 * as the steps read them (the collector hands them on), the target every second, and the query runs
 * with the findings of the same moment, twice a second while reads are in
 * flight (once a second otherwise, and as soon as a finding changes), only
 * while someone watches. The findings and the runs they quote always go out
 * together, with one asOf: the page never shows a sentence beside a row of
 * another moment. The runs go out as changes to the last queries state
 * (queries-changes); a new viewer gets the whole state first from the feed.
 * The payloads are built by lib/server/payloads alone.
 */
export class Publisher {
  private lastPublishAt = 0;
  private lastQueriesAt = 0;
  private findingsDirty = false;
  /** the queries state the viewers have: the next changes are against it */
  private sent: SentQueries | null = null;

  constructor(private readonly c: PublishSource) {}

  afterTick(now: number): void {
    const { feed, window } = this.c;
    // Every tick, even when a change is already waiting: the next event must carry this moment.
    if (window.refreshFindings(now, this.c.info())) this.findingsDirty = true;
    // Synchronous handles count too: under io_method = sync a scan's progress and read rate come from them.
    const aio = window.lastTick()?.aio;
    const readsInFlight = (aio?.inFlight ?? 0) + (aio?.sync ?? 0) > 0;
    const every = this.findingsDirty ? FINDINGS_EVERY_MS : readsInFlight ? PUBLISH_BUSY_MS : PUBLISH_EVERY_MS;
    if (feed.viewers > 0 && now - this.lastQueriesAt >= every) this.moment(now);
    if (now - this.lastPublishAt >= PUBLISH_EVERY_MS) {
      this.lastPublishAt = now;
      feed.publish("outages", outagesPayload(window));
      this.target();
    }
  }

  /** Every state event afresh: at start, and when a first viewer arrives. */
  everything(now: number): void {
    this.c.window.refreshFindings(now, this.c.info());
    this.moment(now, true);
    this.c.feed.publish("outages", outagesPayload(this.c.window));
    this.settings();
    this.target();
  }

  /** The findings recomputed now (the target went up or down), with the runs of the same moment. */
  findings(now: number): void {
    this.c.window.refreshFindings(now, this.c.info());
    this.moment(now);
  }

  /** The runs (what changed of them, or all when `whole`) and the findings of one moment, one after the other, with one asOf. */
  private moment(now: number, whole = false): void {
    this.lastQueriesAt = now;
    this.findingsDirty = false;
    const full = queriesPayload(this.c);
    const next = sentQueries(full);
    if (this.sent && !whole) this.c.feed.publishChanges("queries", full, "queries-changes", diffQueries(this.sent, next));
    else this.c.feed.publish("queries", full);
    this.sent = next;
    this.c.feed.publish("findings", findingsPayload(this.c));
  }

  target(): void {
    this.c.feed.publish("target", this.c.info());
  }

  /** The settings, a restart and the checks: when any changed (the collector knows), and to a first viewer. */
  settings(): void {
    this.c.feed.publish("settings", settingsPayload(this.c.window));
  }
}
