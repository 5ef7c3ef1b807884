import { expect, test } from "@playwright/test";
import pg from "pg";
import { demoCluster, dropFromOsCache, openTarget } from "./helpers";

// Issue 19: one io worker behind several cold scans is the queue, and the
// page says so with its evidence and the lever, never "not saturated"
// (1 of 1 busy is saturation). The demo is restarted with io_workers = 1
// and left as it was found: io_method worker, io_workers 3.

const DEMO = { io_method: "worker", io_workers: 3 } as const;
const TABLE = "public.readings";
const SCANS = 4;

async function restartDemo(request: import("@playwright/test").APIRequestContext, settings: { io_method: string; io_workers: number }) {
  const res = await request.get(`/api/targets/demo/window?from=${Date.now()}`);
  // As the page does: its own Origin (the server refuses a state change without one).
  const posted = await request.post("/api/targets/demo/demo", {
    data: settings,
    headers: { Origin: new URL(res.url()).origin },
    timeout: 90_000,
  });
  expect(posted.ok(), await posted.text()).toBe(true);
}

test.afterAll(async ({ request }) => {
  const res = await request.get(`/api/targets/demo/window?from=${Date.now()}`);
  const settings = res.ok() ? (await res.json()).settings : null;
  if (settings?.io_method?.setting !== DEMO.io_method || settings?.io_workers?.setting !== String(DEMO.io_workers))
    await restartDemo(request, DEMO);
});

/** Writes the table out, then drops its files from the OS page cache: the next scan reads from disk. */
async function evict(admin: pg.Client, dataDir: string): Promise<void> {
  await admin.query("CHECKPOINT");
  await dropFromOsCache(admin, dataDir, TABLE);
}

test("one io worker behind four cold scans: the finding says the io workers are the queue, how often, and raise io_workers (now 1)", async ({
  page,
  request,
}) => {
  test.setTimeout(300_000);
  await openTarget(page);
  await restartDemo(request, { io_method: "worker", io_workers: 1 });
  await expect(page.getByTestId("target-status")).toHaveAttribute("data-status", "up", { timeout: 120_000 });
  await expect(page.getByTestId("setting-io_workers")).toHaveAttribute("data-value", "1", { timeout: 60_000 });

  const cluster = demoCluster();
  const connection = {
    host: "127.0.0.1",
    port: cluster.port,
    database: "inflight_demo",
    user: "postgres",
    password: cluster.superuserPassword,
  };
  const admin = new pg.Client({ ...connection, application_name: "workers-spec-admin" });
  await admin.connect();
  const { rows } = await admin.query<{ blocks: string }>(
    "SELECT (pg_relation_size($1::regclass) / current_setting('block_size')::int)::text AS blocks",
    [TABLE],
  );
  const quarter = Math.floor(Number(rows[0].blocks) / SCANS);
  // Four scans of their own quarter of the table each (TID range scans read ahead as a
  // sequential scan does), so none rides on another's reads.
  const scanners = await Promise.all(
    Array.from({ length: SCANS }, async () => {
      const c = new pg.Client({ ...connection, application_name: "workers-spec-scan" });
      await c.connect();
      await c.query("SET max_parallel_workers_per_gather = 0");
      return c;
    }),
  );
  let scanning = true;
  const rounds = (async () => {
    while (scanning) {
      await evict(admin, cluster.dataDir);
      await Promise.all(
        scanners.map((c, i) =>
          c.query(`SELECT count(*) FROM ${TABLE} WHERE ctid >= '(${i * quarter},0)'::tid AND ctid < '(${(i + 1) * quarter},0)'::tid`),
        ),
      );
    }
  })();

  const said = new Set<string>();
  try {
    const findings = page.getByTestId("finding");
    let text = "";
    await expect
      .poll(
        async () => {
          for (const t of await findings.allTextContents()) said.add(t);
          // The server's line: the cause once, its evidence (opened on demand) and the lever.
          text =
            (await page.locator('[data-testid="finding"][data-rule="workers_queue"][data-run=""]').allTextContents()).find((t) =>
              /now 1;/.test(t),
            ) ?? "";
          return text;
        },
        { timeout: 150_000, intervals: [250], message: "a workers_queue finding with one io worker" },
      )
      .toMatch(/io workers are the queue/i);
    // The evidence: how often the one worker was full while backends waited, and the lever.
    expect(text).toMatch(
      /full while backends waited on them in \d+% of the samples of the last 5 s \(1 of 1 io worker busy in \d+%; backends waiting on their reads \(IO:AioIoCompletion\) in \d+%/,
    );
    expect(text).toMatch(/raise io_workers \(now 1; a reload applies it\) and measure again/i);
    await page.screenshot({ path: "test-results/workers-queue.png" });
  } finally {
    scanning = false;
    await rounds.catch(() => undefined);
    await Promise.all(scanners.map((c) => c.end()));
    await admin.end();
  }
  // 1 of 1 busy is saturation: no sentence on the page said otherwise.
  expect([...said].filter((t) => /not saturated/.test(t))).toEqual([]);
});
