import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import pg from "pg";
import { demoCluster, openTarget, startInflightOn, stopInflight } from "./helpers";

// INFLIGHT_REDACT=1 end to end: an inflight of its own on the demo's
// cluster, with the redaction on, watches a scan whose text carries a
// literal; the literal reaches none of what leaves the process (the page,
// its stream, the window, the findings, the history, the fleet, the export,
// /metrics), while the statement itself does, its literal replaced.

const SECRET = "inflight-secret-7431";
const SCAN = `SELECT count(*), max(reading) FROM public.readings WHERE payload LIKE '%${SECRET}%'`;
/** The statement with its literal replaced ($1 from pg_stat_statements, or ?): not the demo's own scans. */
const REDACTED = /max\(reading\) FROM public\.readings WHERE payload LIKE (\$\d+|\?)/;

let inflight: { base: string; server: ChildProcess } | null = null;
let dir = "";
let url = "";

test.beforeAll(async () => {
  test.setTimeout(120_000);
  const cluster = demoCluster();
  url = `postgres://postgres:${encodeURIComponent(cluster.superuserPassword)}@127.0.0.1:${cluster.port}/inflight_demo`;
  dir = mkdtempSync(path.join(os.tmpdir(), "inflight-redact-"));
  inflight = await startInflightOn(url, { INFLIGHT_REDACT: "1", INFLIGHT_HISTORY_FILE: path.join(dir, "history.db") });
});

test.afterAll(async () => {
  if (inflight) await stopInflight(inflight.server);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The SSE stream's bytes over `ms`: what a viewer's browser receives. */
async function streamBytes(base: string, id: string, ms: number): Promise<string> {
  const abort = new AbortController();
  const res = await fetch(`${base}/api/targets/${id}/stream`, { signal: abort.signal, headers: { Accept: "text/event-stream" } });
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  const chunks: string[] = [];
  const decoder = new TextDecoder();
  const until = Date.now() + ms;
  try {
    while (Date.now() < until) {
      const next = await Promise.race([reader.read(), new Promise<null>((r) => setTimeout(() => r(null), until - Date.now()))]);
      if (!next || next.done) break;
      chunks.push(decoder.decode(next.value, { stream: true }));
    }
  } finally {
    abort.abort();
  }
  return chunks.join("");
}

test("with INFLIGHT_REDACT=1 a statement's literal leaves the process nowhere, and the statement does", async ({ page, request }) => {
  test.setTimeout(180_000);
  const { base } = inflight!;
  const id = "127.0.0.1";
  await openTarget(page, `${base}/targets/${id}`);
  const scanner = new pg.Client(url);
  await scanner.connect();
  const from = Date.now();
  let scanning = true;
  const scans = (async () => {
    await scanner.query("SET max_parallel_workers_per_gather = 0");
    while (scanning) await scanner.query(SCAN);
  })();
  let stream: string;
  try {
    // The run is on the page, its literal replaced ($1 from pg_stat_statements, or ?).
    const row = page.getByTestId("query-text").filter({ hasText: "max(reading)" }).first();
    await expect(row).toBeAttached({ timeout: 60_000 });
    await expect(row).toHaveText(REDACTED);
    stream = await streamBytes(base, id, 4000);
  } finally {
    scanning = false;
    await scans;
    await scanner.end();
  }
  // The statement's runs ended: the history and pg_stat_statements have them.
  const to = Date.now() + 1000;
  const get = async (p: string) => {
    const res = await request.get(`${base}${p}`);
    expect(res.status(), p).toBe(200);
    return res.text();
  };
  await expect
    .poll(
      async () =>
        JSON.parse(await get(`/api/targets/${id}/window?from=${from}`)).queries.some((q: { query: string }) => REDACTED.test(q.query)),
      { timeout: 30_000 },
    )
    .toBe(true);
  const said: Record<string, string> = {
    page: await page.content(),
    "page text": await page.locator("body").innerText(),
    stream,
    window: await get(`/api/targets/${id}/window?from=${from}`),
    findings: await get(`/api/targets/${id}/findings`),
    fleet: await get(`/api/fleet`),
    "export (JSON)": await get(`/api/targets/${id}/export?format=json&from=${from}&to=${to}`),
    metrics: await get(`/metrics`),
  };
  // The history is written every 5 s: this statement's runs are on disk once a range read holds them (the demo's own runs may come first).
  await expect
    .poll(async () => REDACTED.test(await get(`/api/targets/${id}/history?from=${from}&to=${Date.now()}`)), { timeout: 30_000 })
    .toBe(true);
  said.history = await get(`/api/targets/${id}/history?from=${from}&to=${Date.now()}`);
  for (const [where, text] of Object.entries(said)) expect(text.includes(SECRET), `${where} carries the literal`).toBe(false);
  // What was checked holds the statement: a check that cannot fail would not.
  for (const where of ["stream", "window", "export (JSON)", "history"]) expect(said[where], `${where} has the statement`).toMatch(REDACTED);
});
