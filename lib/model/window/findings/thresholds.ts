// The thresholds the findings rules decide by, named once. Where a figure
// comes from the background write-ups or PG18-FACTS.md, it says so.

/** A running query gets a sentence of its own once it has run this long. */
export const SLOW_RUN_MS = 1000;
/** At most this many running queries get a finding (the page shows three, the rest on demand); beyond, counted. */
export const MAX_RUN_FINDINGS = 8;
/** Fewer samples than this: too few to tell, not 0% or 100%. */
export const MIN_SAMPLES = 5;
/** Read wait under this share of a run's samples (with at least READS_MIN_SAMPLES): reads are not its bottleneck. */
export const READS_NOT_BOTTLENECK_SHARE = 0.2;
export const READS_MIN_SAMPLES = 20;
/** Read wait at or above this share counts as high (for the read-ahead rule). */
export const READ_WAIT_HIGH_SHARE = 0.4;
/** The window the io workers are judged over. */
export const WORKERS_SPAN_MS = 5000;
/** The io workers full (every alive one busy, or reads queued for one) while a backend waited, in at least
 * this share of the samples over WORKERS_SPAN_MS: they are the queue (act). */
export const WORKERS_BUSY_SHARE = 0.8;
/** ...in at least this share: the queue part of the time (a note), a lever still: one io worker behind four
 * cold scans, full in about a third of the samples, made them 20% slower than three workers did (issue 19). */
export const WORKERS_PARTIAL_SHARE = 0.2;
/** Samples needed over WORKERS_SPAN_MS before the io workers are judged. */
export const WORKERS_MIN_SAMPLES = 5;
/** A run's reads in flight at least this share of effective_io_concurrency, most of the time: read-ahead depth is the limit. */
export const READAHEAD_PINNED_SHARE = 0.8;
/** Average read under this size: scattered blocks, little to combine (a cold sequential scan reads ~120 kB a read). */
export const SMALL_READ_BYTES = 32 * 1024;
/** Handles this large or more are combined reads of several blocks (a scan), not 8 kB index pages. */
export const COMBINED_READ_BYTES = 8192 * 2;
/** io_uring submission waits in at least this share of active samples: they dominate. */
export const URING_SUBMIT_SHARE = 0.3;
/** Statements with at least this much execution time in the window are worth a "cached" sentence. */
export const CACHED_MIN_EXEC_MS = 100;
/** Scan rates are judged over the last this long. */
export const RATE_SPAN_MS = 3000;
/** Reloads of this server start named each by a finding of its own, the newest first. */
export const MAX_RELOAD_FINDINGS = 3;
