import { expect, test } from "@playwright/test";

// Against the real server (`node scripts/start.mjs`) watching the embedded
// PostgreSQL 18 and its demo workload.

test("the fleet page lists the demo target and links to it", async ({ page }) => {
  await page.goto("/");
  const link = page.getByRole("link", { name: /demo/ }).first();
  await expect(link).toBeVisible();
  await link.click();
  await expect(page).toHaveURL(/\/targets\/demo/);
});

test("the target page draws async reads in flight from the demo workload and shows io_method", async ({ page }) => {
  test.setTimeout(240_000);
  await page.goto("/targets/demo");
  await expect(page.getByTestId("target-status")).toHaveAttribute("data-status", "up", { timeout: 180_000 });

  const chart = page.getByTestId("inflight-chart");
  await expect(chart).toBeVisible();
  // The demo's cold sequential scan puts async handles in flight; the chart
  // must draw them (a non-empty series), not just hold them in memory.
  await expect.poll(async () => Number(await chart.getAttribute("data-max")), { timeout: 120_000, intervals: [500] }).toBeGreaterThan(0);
  await expect.poll(async () => Number(await chart.getAttribute("data-points")), { timeout: 10_000 }).toBeGreaterThan(0);
  await expect(chart.locator("path.inflight-area").first()).toBeVisible();
  // inflight draws the series and the pointer's tooltip: it lists the row nearest the pointer.
  const plot = await chart.getByTestId("chart-pointer").boundingBox();
  if (!plot) throw new Error("the in-flight chart has no plot area");
  await page.mouse.move(plot.x + plot.width * 0.9, plot.y + plot.height / 2);
  const tooltip = chart.getByTestId("chart-tooltip");
  await expect(tooltip).toContainText("synchronous (f_sync)");
  await expect(tooltip).toContainText("size in flight");
  await expect(tooltip).toContainText(/\d\d:\d\d:\d\d/);
  await page.mouse.move(0, 0);
  await expect(tooltip).toHaveCount(0);

  const settings = page.getByTestId("settings-panel");
  await expect(settings).toBeVisible();
  await expect(page.getByTestId("setting-io_method")).toContainText("worker");
  await expect(settings).toContainText("128 kB");

  await expect(page.getByTestId("io-workers-chart")).toBeVisible();
  await expect(page.getByTestId("throughput-chart")).toBeVisible();
  // The README's screenshot: the last minute, after a couple of rounds of
  // the demo workload (a scan, a bitmap scan, lookups, an update + vacuum).
  await page.getByRole("button", { name: "1 min" }).click();
  await page.waitForTimeout(25_000);
  // ...taken while a scan runs, so that the findings at the top say what it is doing.
  const scanFinding = page.locator('[data-testid="finding"]:not([data-run=""])', { hasText: /s left/ });
  await expect.poll(() => scanFinding.count(), { timeout: 120_000, intervals: [100] }).toBeGreaterThan(0);
  await page.screenshot({ path: "test-results/dashboard.png", fullPage: true });
});
