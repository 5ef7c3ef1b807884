// The sizing view's own thresholds (issue 41); where a live finding has one
// for the same concept (the io workers the queue, read-ahead at its cap, a
// method faster), the sizing rule imports that one instead.
import { IO_WORKERS_RANGE } from "../../../schemas/enums";

/** A range with less sampled time than this says "not enough evidence" for the load-based levers. */
export const SIZING_MIN_SAMPLED_MS = 10_000;
/** Samples with reads through the io workers needed before their share is judged. */
export const SIZING_MIN_READING_SAMPLES = 20;
/** The busiest seconds the io workers are sized for: this quantile of the full seconds' peaks. */
export const SIZING_PEAK_QUANTILE = 0.9;
/** A worker setting is raised at most this many times over at once: then measured again. */
export const SIZING_MAX_STEP = 4;
/** PostgreSQL's ceiling for io_workers, io_min_workers and io_max_workers. */
export const SIZING_WORKERS_CAP = IO_WORKERS_RANGE.max;
/** Runs at the read-ahead cap needed before raising it. */
export const SIZING_MIN_PINNED_RUNS = 2;
/** effective_io_concurrency's default: a cap below it is raised to it, one at or above it doubled. */
export const READAHEAD_DEFAULT = 16;
/** effective_io_concurrency's and maintenance_io_concurrency's ceiling. */
export const READAHEAD_CAP = 1000;
/** io_workers' default on 18: a count above it is lowered only toward it. */
export const IO_WORKERS_DEFAULT = 3;
/** Launches over the range from which 19's pool is said to churn (grow and shrink over and over). */
export const SIZING_CHURN_LAUNCHES = 10;
