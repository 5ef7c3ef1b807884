import { expect, test, type Page } from "@playwright/test";
import { dragOnInflightChart, openTarget } from "./helpers";

// Issue 6: take the evidence away. A frozen view stays put while the stream
// goes on; its link opens the same range and the same selected run.

async function chartState(page: Page) {
  const chart = page.getByTestId("inflight-chart");
  return {
    from: await chart.getAttribute("data-from"),
    to: await chart.getAttribute("data-to"),
    last: await chart.getAttribute("data-last"),
    rows: await chart.getAttribute("data-rows"),
    paths: await chart.locator("svg.recharts-surface path").evaluateAll((ps) => ps.map((p) => p.getAttribute("d")).join("|")),
  };
}

test("freezing stops the charts while ticks still arrive; Live resumes", async ({ page }) => {
  test.setTimeout(120_000);
  await openTarget(page);
  const chart = page.getByTestId("inflight-chart");
  await expect.poll(async () => Number(await chart.getAttribute("data-rows")), { timeout: 60_000 }).toBeGreaterThan(0);

  await page.getByTestId("view-freeze").click();
  const bar = page.getByTestId("frozen-bar");
  await expect(bar).toBeVisible();
  await expect(bar).toContainText("Frozen");
  await expect(page).toHaveURL(/[?&]from=\d+&to=\d+/);
  const frozen = await chartState(page);
  expect(frozen.to).toBe(await bar.getAttribute("data-to"));

  // Ticks keep coming (10 a second while someone watches)...
  const newTicks = page.getByTestId("frozen-new-ticks");
  await expect.poll(async () => Number(await newTicks.getAttribute("data-count")), { timeout: 20_000 }).toBeGreaterThan(10);
  const counted = Number(await newTicks.getAttribute("data-count"));
  await expect.poll(async () => Number(await newTicks.getAttribute("data-count")), { timeout: 10_000 }).toBeGreaterThan(counted);
  await expect(page.getByTestId("stream-state")).toHaveAttribute("data-state", "live");
  // ...and the chart has not moved.
  expect(await chartState(page)).toEqual(frozen);

  await page.getByTestId("view-live").click();
  await expect(bar).toBeHidden();
  await expect.poll(async () => (await chartState(page)).to, { timeout: 10_000 }).not.toBe(frozen.to);
  await expect(page).toHaveURL(/[?&]view=5m/);
});

test("a link opens the same frozen range with the same run selected", async ({ page, context }) => {
  test.setTimeout(150_000);
  await openTarget(page);
  const rows = page.getByTestId("query-row");
  await expect(rows.first()).toBeVisible({ timeout: 60_000 });
  const chart = page.getByTestId("inflight-chart");
  const pickable = async () => {
    const firstRow = Number(await chart.getAttribute("data-first"));
    const viewTo = Number(await chart.getAttribute("data-to"));
    const runs = await rows.evaluateAll((els) => els.map((el) => el.getAttribute("data-run")!));
    // Started well inside the view (the newest may have started after its
    // last tick, and a zoom to the view would leave it out), and after the
    // chart's first row by more than the drag's margin (a run that began
    // before sampling did cannot be dragged to).
    return runs.find((id) => Number(id.split(":")[1]) <= viewTo - 1_000 && Number(id.split(":")[1]) >= firstRow + 6_000);
  };
  // A fresh server has sampled for a few seconds only: wait until such a run exists.
  await expect.poll(pickable, { timeout: 60_000, intervals: [500] }).toBeDefined();

  // Freeze first, so the table holds still while a run is picked.
  await page.getByTestId("view-freeze").click();
  const viewTo = Number(await chart.getAttribute("data-to"));
  const run = await pickable();
  expect(run, `a run that started inside the frozen view, before ${viewTo}`).toBeDefined();
  const row = page.locator(`[data-testid="query-row"][data-run="${run}"]`);
  await row.click();
  await expect(page.getByTestId("run-timeline")).toBeVisible();

  // Zoom into the range from a little before the run started to the end of the view.
  const startedAt = Number(run!.split(":")[1]);
  await dragOnInflightChart(page, startedAt - 5_000, viewTo);
  const bar = page.getByTestId("frozen-bar");
  await expect(bar).toHaveAttribute("data-zoomed", "true");
  await expect(page.getByTestId("view-reset-zoom")).toBeVisible();

  const from = (await bar.getAttribute("data-from"))!;
  const to = (await bar.getAttribute("data-to"))!;
  expect(Number(from)).toBeLessThanOrEqual(startedAt);
  await expect(page).toHaveURL(new RegExp(`[?&]from=${from}&to=${to}&run=${encodeURIComponent(run!)}`));
  const link = page.url();
  const rangeText = await page.getByTestId("frozen-range").textContent();
  await expect(page.locator(`[data-testid="query-row"][data-run="${run}"]`)).toHaveAttribute("aria-selected", "true");

  const other = await context.newPage();
  await openTarget(other, link);
  const otherBar = other.getByTestId("frozen-bar");
  await expect(otherBar).toBeVisible();
  await expect(otherBar).toHaveAttribute("data-from", from);
  await expect(otherBar).toHaveAttribute("data-to", to);
  await expect(other.getByTestId("frozen-range")).toHaveText(rangeText!);
  await expect(other.getByTestId("inflight-chart")).toHaveAttribute("data-from", from);
  await expect(other.getByTestId("inflight-chart")).toHaveAttribute("data-to", to);
  await expect(other.locator(`[data-testid="query-row"][data-run="${run}"]`)).toHaveAttribute("aria-selected", "true");
  await expect(other.getByTestId("run-timeline")).toBeVisible();
  await expect(other).toHaveURL(link);

  // Reset zoom on the first page goes back to where the view was frozen.
  await page.getByTestId("view-reset-zoom").click();
  await expect(bar).toHaveAttribute("data-zoomed", "false");
  expect(Number(await bar.getAttribute("data-from"))).toBeLessThan(Number(from));
});
