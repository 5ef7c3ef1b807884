import { expect, test } from "@playwright/test";
import { expandRunGroups, openTarget, runRows } from "./helpers";

// Issue 3: what each running query reads, and how. The demo loop runs a cold
// sequential scan (~1 s, async reads) every ~10 s, and index lookups (read
// synchronously in PostgreSQL 18).

const SEQ_SCAN = "LIKE '%zz%'";
const LOOKUPS = "WHERE id = ANY(";

test("the sequential scan reads asynchronously with a moving progress bar; index lookups read synchronously", async ({ page }) => {
  test.setTimeout(200_000);
  await openTarget(page);

  // Progress values per run, sampled while scans run: a bar that moves shows
  // two different values for the same run. Runs are published once a second
  // and a scan lasts about that long: its running value and its final one.
  // All rows, or an ended scan can sort below the first page.
  const showAll = page.getByTestId("queries-show-all");
  const seen = new Map<string, Set<number>>();
  await expect
    .poll(
      async () => {
        if ((await showAll.count()) && (await showAll.getAttribute("aria-pressed")) === "false") await showAll.click();
        await expandRunGroups(page);
        const rows = await page
          .getByTestId("query-row")
          .filter({ hasText: SEQ_SCAN })
          .evaluateAll((els) => els.map((e) => [e.getAttribute("data-run") ?? "", e.getAttribute("data-progress") ?? ""]));
        for (const [run, progress] of rows) {
          const p = Number(progress);
          if (progress !== "" && p > 0) seen.set(run, (seen.get(run) ?? new Set()).add(p));
        }
        return Math.max(0, ...[...seen.values()].map((s) => s.size));
      },
      { timeout: 90_000, intervals: [100], message: "a sequential scan's progress moving (two values > 0 for one run)" },
    )
    .toBeGreaterThanOrEqual(2);

  // A running scan has a bar; an ended one says it finished (agree.spec.ts).
  const runningScan = page.locator('[data-testid="query-row"][data-verdict="async"][data-running="true"]', { hasText: SEQ_SCAN });
  await expect.poll(() => runningScan.getByRole("progressbar").count(), { timeout: 90_000, intervals: [100] }).toBeGreaterThan(0);
  const scan = runRows(page, "async", SEQ_SCAN).first();
  await expect(scan).toBeVisible({ timeout: 30_000 });
  // Sub-second lookups are grouped by statement: open the groups to see the runs.
  await expect
    .poll(
      async () => {
        await expandRunGroups(page);
        return runRows(page, "sync", LOOKUPS).count();
      },
      { timeout: 60_000, intervals: [500] },
    )
    .toBeGreaterThan(0);

  // Its timeline: the run's state in each sample.
  const id = await scan.getAttribute("data-run");
  await scan.click();
  await expect(page.locator(`[data-testid="query-row"][data-run="${id}"]`)).toHaveAttribute("aria-selected", "true");
  const timeline = page.getByTestId("run-timeline");
  await expect(timeline).toBeVisible();
  await expect(timeline).toContainText(SEQ_SCAN);
  await expect(timeline.getByTestId("run-state-strip")).toBeVisible();
});

test("a closed group keeps the selected run in sight, and only it; opened, it lists every run again", async ({ page }) => {
  test.setTimeout(200_000);
  await openTarget(page);
  const showAll = page.getByTestId("queries-show-all");
  // A group of sub-second runs of one statement (the demo's index lookups repeat)
  const group = page.locator('[data-testid="run-group"]').first();
  await expect
    .poll(
      async () => {
        if ((await showAll.count()) && (await showAll.getAttribute("aria-pressed")) === "false") await showAll.click();
        return (await group.count()) ? Number(await group.getAttribute("data-runs")) : 0;
      },
      { timeout: 120_000, intervals: [500], message: "a group of two runs or more" },
    )
    .toBeGreaterThanOrEqual(2);
  const key = (await group.getAttribute("data-group"))!;
  const header = page.locator(`[data-testid="run-group"][data-group=${JSON.stringify(key)}]`);
  const toggle = header.getByRole("button");
  const members = page.locator(`[data-testid="query-row"][data-group=${JSON.stringify(key)}]`);
  // the rows under the header against the count it gives, read together (runs join and leave the group live)
  const shownAgainstCount = () =>
    page.evaluate((k) => {
      const h = [...document.querySelectorAll('[data-testid="run-group"]')].find((e) => e.getAttribute("data-group") === k);
      const rows = [...document.querySelectorAll('[data-testid="query-row"]')].filter((e) => e.getAttribute("data-group") === k);
      return { shown: rows.length, runs: Number(h?.getAttribute("data-runs") ?? -1) };
    }, key);

  await expect(toggle).toHaveAttribute("aria-expanded", "false");
  await expect(members).toHaveCount(0);
  await toggle.click();
  await expect(toggle).toHaveAttribute("aria-expanded", "true");
  await expect
    .poll(
      async () => {
        const s = await shownAgainstCount();
        return s.shown === s.runs && s.runs >= 2;
      },
      { timeout: 10_000 },
    )
    .toBe(true);

  // pick one of its runs: its timeline opens
  const id = (await members.first().getAttribute("data-run"))!;
  const picked = page.locator(`[data-testid="query-row"][data-run="${id}"]`);
  await picked.click();
  await expect(picked).toHaveAttribute("aria-selected", "true");
  await expect(page.getByTestId("run-timeline")).toBeVisible();

  // closed again: the header says so, and only the selected run stays under it, with its timeline
  await toggle.click();
  await expect(toggle).toHaveAttribute("aria-expanded", "false");
  await expect(header).toContainText("the selected one below");
  await expect(members).toHaveCount(1);
  await expect(members.first()).toHaveAttribute("data-run", id);
  await expect(members.first()).toHaveAttribute("aria-selected", "true");
  await expect(page.getByTestId("run-timeline")).toBeVisible();

  // opened again: every run of the group
  await toggle.click();
  await expect(toggle).toHaveAttribute("aria-expanded", "true");
  await expect
    .poll(
      async () => {
        const s = await shownAgainstCount();
        return s.shown === s.runs && s.runs >= 2;
      },
      { timeout: 10_000 },
    )
    .toBe(true);
});
