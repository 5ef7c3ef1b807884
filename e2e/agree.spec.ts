import { expect, test } from "@playwright/test";
import { openTarget } from "./helpers";

// Issue 11, "make the numbers agree": what a newcomer read as contradictions
// on the page, checked on the page (the figures themselves are unit-tested
// in lib/view).

test("the header and the io workers panel say the same workers figure, from the same sample", async ({ page }) => {
  await openTarget(page);
  await expect(page.getByTestId("panel-workers-now")).not.toHaveAttribute("data-alive", "", { timeout: 30_000 });
  // Read both in one task, many times while ticks arrive: never apart.
  const pairs = await page.evaluate(async () => {
    const out: string[][] = [];
    for (let i = 0; i < 30; i++) {
      const h = document.querySelector<HTMLElement>('[data-testid="workers-now"]')!;
      const p = document.querySelector<HTMLElement>('[data-testid="panel-workers-now"]')!;
      out.push([`${h.dataset.busy}/${h.dataset.alive}`, `${p.dataset.busy}/${p.dataset.alive}`]);
      await new Promise((r) => setTimeout(r, 70));
    }
    return out;
  });
  for (const [header, panel] of pairs) expect(header).toBe(panel);
});

test("the read throughput panel's now and the header's async in flight are of the same sample", async ({ page }) => {
  await openTarget(page);
  // Looks taken in one task each while the demo's scans read: at least a few with reads in flight.
  const looks: { header: string; panel: string }[] = [];
  await expect
    .poll(
      async () => {
        looks.push(
          ...(await page.evaluate(async () => {
            const out: { header: string; panel: string }[] = [];
            for (let i = 0; i < 20; i++) {
              out.push({
                header: document.querySelector('[data-testid="now-inflight"]')?.textContent ?? "",
                panel: document.querySelector('[data-testid="read-rate-now"]')?.textContent ?? "",
              });
              await new Promise((r) => setTimeout(r, 70));
            }
            return out;
          })),
        );
        return looks.filter((l) => Number(l.header) > 0).length;
      },
      { timeout: 90_000, intervals: [0] },
    )
    .toBeGreaterThanOrEqual(5);
  for (const { header, panel } of looks) {
    const inFlight = /^\d+$/.test(header) ? Number(header) : null;
    const unrated = Number(/(\d+) reads? in flight, no rate yet/.exec(panel)?.[1] ?? 0);
    if (inFlight === null) {
      // pg_aios not read in that sample: neither says what is in flight.
      expect(panel).not.toMatch(/in flight/);
      continue;
    }
    if (inFlight === 0) expect(panel, header).not.toMatch(/reads? in flight, no rate yet/);
    else expect(panel, header).not.toMatch(/no (async )?read in flight/);
    expect(unrated, `${header} | ${panel}`).toBeLessThanOrEqual(inFlight);
  }
});

test("the in-flight chart and the cost line name one pg_aios interval, read at the same moment", async ({ page }) => {
  await openTarget(page);
  const every = (text: string, re: RegExp) => re.exec(text)?.[1] ?? null;
  const COST = /pg_aios every (\d[\d.]* m?s)\b/;
  const CHART = /pg_aios handles, read every (\d[\d.]* m?s) while backends run/;
  // While the demo's scans run the cost line names pg_aios's interval; then both, in one task.
  await expect(page.getByTestId("watch-cost")).toContainText(COST, { timeout: 60_000 });
  const looks = await page.evaluate(async () => {
    const out: { cost: string; chart: string }[] = [];
    for (let i = 0; i < 20; i++) {
      out.push({
        cost: document.querySelector('[data-testid="watch-cost"]')?.textContent ?? "",
        chart: document.querySelector('[data-testid="inflight-subtitle"]')?.textContent ?? "",
      });
      await new Promise((r) => setTimeout(r, 100));
    }
    return out;
  });
  for (const { cost, chart } of looks) {
    if (every(cost, COST) === null) expect(chart, cost).not.toMatch(CHART);
    else expect(every(chart, CHART), `${cost} | ${chart}`).toBe(every(cost, COST));
  }
});

test("the header says when inflight connected apart from the server's start, and names the demo once", async ({ page }) => {
  await openTarget(page);
  await expect(page.getByTestId("target-status")).toContainText(/^up · connected since \d\d:\d\d:\d\d/);
  await expect(page.getByTestId("server-started")).toContainText(/\d\d:\d\d:\d\d \(/);
  await expect(page.locator("header").first()).not.toContainText("demodemo");
  await expect(page.getByTestId("watch-cost")).toContainText(/watching costs [\d.]+ ms\/s of server time/);
  await expect(page.getByTestId("watch-cost")).toContainText(/[<\d.]+% of a core/);
  // Nothing fails here (pg_aios may be "not read yet" until a backend is active: not a fault).
  await expect(page.getByTestId("collection")).toHaveAttribute("data-degraded", "false");
  // The demo has no pg_wait_sampling: where the wait events come from is said under the cost toggle, not above the charts.
  const sampler = page.getByTestId("watch-cost").getByTestId("wait-sampler");
  await expect(sampler).toBeHidden();
  await page.getByTestId("watch-cost").locator("summary").click();
  await expect(sampler).toHaveText(/^wait events from pg_stat_activity, every \d+ ms$/);
  await expect(sampler).toHaveAttribute("data-source", "pg_stat_activity");
});

test("settings and checks say what they mean: units, limits, and io_uring not offered", async ({ page }) => {
  await openTarget(page);
  await expect(page.getByTestId("setting-block_size")).toContainText("8 kB");
  await expect(page.getByTestId("setting-effective_io_concurrency")).toContainText("a limit, not a count");
  await expect(page.getByTestId("check-effective_io_concurrency")).not.toContainText("reads ahead.");
  // The embedded build has no liburing: said plainly, not "unknown".
  await expect(page.getByTestId("check-io_uring")).toHaveAttribute("data-status", "info");
  await expect(page.getByTestId("check-io_uring")).toContainText("Not offered");
});

test("the Statements panel leaves out housekeeping and the demo's bookkeeping, and says how many it hid", async ({ page }) => {
  test.setTimeout(150_000);
  await openTarget(page);
  const hidden = page.getByTestId("statements-hidden");
  // pg_stat_statements is read every 10 s; the demo's bitmap scan runs in a transaction with SET LOCAL.
  await expect.poll(async () => Number(await hidden.getAttribute("data-hidden")), { timeout: 120_000 }).toBeGreaterThan(0);
  await expect(hidden).toContainText("transaction-control and SET");
  const texts = await page.getByTestId("statement-row").getByTestId("query-text").allInnerTexts();
  expect(texts.length).toBeGreaterThan(0);
  for (const t of texts) expect(t).not.toMatch(/^(BEGIN|COMMIT|SET)\b|pg_relation_filepath|coalesce\(max\(id\)|pg_backend_pid/i);
});

test("ended scans say finished, not an empty 0% bar", async ({ page }) => {
  test.setTimeout(150_000);
  await openTarget(page);
  // Ended scans whose block positions were seen (a scan sampled once a second, before this page opened, may have none).
  const ended = page.locator('[data-testid="query-row"][data-running="false"]:not([data-progress=""])', { hasText: "LIKE '%zz%'" });
  await expect(ended.first()).toBeVisible({ timeout: 120_000 });
  await expect(ended.first().getByTestId("run-finished")).toContainText(/^finished \([\d.]+ s\), scanned public\.readings/);
  await expect(ended.first().getByRole("progressbar")).toHaveCount(0);
  // An ended run's in-flight cell has its figure and says what it is.
  await expect(ended.first().getByTestId("run-inflight")).toContainText(/(\d+peak in flight|0none seen in flight|pg_aios not read)/);
});
