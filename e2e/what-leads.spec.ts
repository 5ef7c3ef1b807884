import { expect, test } from "@playwright/test";
import { openTarget, restoreDemo } from "./helpers";

// Issue 19: the before/after leads with what matters. After a restart of
// the demo worker -> sync, once its workload has run on both sides, the
// comparison's first row is the statement with the most time at stake
// (calls x mean, the larger side), and housekeeping (SET, BEGIN/COMMIT,
// monitoring polls) is folded below the workload's statements. The demo is
// left as it was found. The file sorts after restart.spec.ts and
// what-changed.spec.ts on purpose (one server, files in order): its restarts
// would be in their notes.

test.afterAll(async ({ request }) => {
  await restoreDemo(request);
});

/** The demo's cold sequential scan: the slow statement of its workload (pg_stat_statements' text). */
const SEQ_SCAN = "payload LIKE";

test("after a restart the comparison leads with the demo's slow scan, housekeeping folded", async ({ page, request }) => {
  test.setTimeout(300_000);
  // from worker, whatever an earlier spec left
  await restoreDemo(request);
  await openTarget(page);
  await expect(page.getByTestId("setting-io_method")).toHaveAttribute("data-value", "worker", { timeout: 30_000 });
  const panel = page.getByTestId("compare-panel");
  // The before side needs the scan too: one that started once inflight had its baseline read of pg_stat_statements.
  const since = Date.now() + 3000;
  await expect
    .poll(
      async () => {
        const res = await request.get(`/api/targets/demo/window?from=${since}`);
        const runs: { query: string; startedAt: number; endedAt: number | null }[] = res.ok() ? (await res.json()).queries : [];
        return runs.some((r) => r.query.includes("LIKE") && r.startedAt > since && r.endedAt !== null);
      },
      { timeout: 120_000, intervals: [1000] },
    )
    .toBe(true);
  await page.getByTestId("demo-io-method").selectOption("sync");
  await expect(page.getByTestId("demo-restart")).toBeEnabled({ timeout: 60_000 });
  const clicked = Date.now();
  await page.getByTestId("demo-restart").click();
  // The comparison of this restart, not of an earlier spec's (the panel shows
  // that one until inflight sees the new start, then loads again).
  const changes = panel.getByTestId("compare-changes");
  await expect
    .poll(
      async () => {
        if (!(await changes.count())) return "none";
        const at = Number(await changes.getAttribute("data-at"));
        const text = (await changes.textContent()) ?? "";
        return at > clicked && text.includes("io_method worker -> sync") ? "this restart" : `${at - clicked} ms: ${text}`;
      },
      { timeout: 90_000, intervals: [1000] },
    )
    .toBe("this restart");
  await expect(panel.getByText(/this server's history \(told apart by its system identifier\)/)).toBeVisible();
  // The scan on both sides: the panel asks again every 15 s.
  const table = panel.getByTestId("compare-table");
  await expect(table.getByTestId("compare-row").filter({ hasText: SEQ_SCAN })).toHaveCount(1, { timeout: 180_000 });
  const rows = table.getByTestId("compare-row");
  // the table as one read, found and read in one task of the page (a locator's evaluateAll takes two round trips)
  const stakes = await page.evaluate(() =>
    [...document.querySelectorAll('[data-testid="compare-table"] [data-testid="compare-row"]')].map((tr) =>
      Number(tr.getAttribute("data-stake-ms")),
    ),
  );
  expect(stakes.length).toBeGreaterThan(0);
  // Ranked by the time at stake, the largest first; none of the workload's rows is housekeeping.
  expect(stakes).toEqual([...stakes].sort((a, b) => b - a));
  await expect(rows.first()).toHaveAttribute("data-housekeeping", "false");
  await expect(rows.first()).toContainText(SEQ_SCAN);
  await expect(table.locator('[data-housekeeping="true"]')).toHaveCount(0);
  await expect(rows.first().getByText(/^(SET|BEGIN|COMMIT)\b/)).toHaveCount(0);
  await panel.screenshot({ path: "test-results/compare-leads.png" });
});
