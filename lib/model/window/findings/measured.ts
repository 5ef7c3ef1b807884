// A finding's evidence from this server's own history (pure): what a
// statement took under each io_method here, from the page's before/after,
// or how to measure it when the history has no such comparison.

/** How to measure what the history has not: the lab. */
export const MEASURE_WITH_LAB = "measure it on a copy with the lab (npm run lab, or the lab button of the demo)";
