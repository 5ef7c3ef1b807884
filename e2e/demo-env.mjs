// The e2e server's demo, in one place: playwright.config.ts starts the
// server on it, and `npm test` (scripts/test.mjs) seeds its table ahead of
// time with the same settings.
//
// A 1 GB demo table: its cold sequential scan reads for a few seconds, long
// enough for a finding with its time left (findings.spec.ts); seeded once
// into .inflight/e2e and kept between runs.
// The budget, the cadence and the window are the shipped defaults: the page
// is tested as a newcomer gets it.
export const E2E_DEMO_ENV = {
  INFLIGHT_DEMO_DIR: ".inflight/e2e",
  INFLIGHT_DEMO_TABLE_MB: "1024",
  INFLIGHT_HISTORY_FILE: ".inflight/e2e/history.db",
};

export const E2E_PORT = Number(process.env.E2E_PORT ?? 3217);
