import AxeBuilder from "@axe-core/playwright";
import { expect, test } from "@playwright/test";
import { openTarget } from "./helpers";

// Issue 19: axe-core found a colour-contrast violation on the target and
// fleet pages. WCAG 2 A and AA rules, on the pages as a user has them (live
// data in, the panels drawn).

const TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];

function describe(violations: Awaited<ReturnType<AxeBuilder["analyze"]>>["violations"]): string {
  return violations
    .map(
      (v) =>
        `${v.id}: ${v.help} (${v.nodes.length}): ${v.nodes
          .slice(0, 3)
          .map((n) => `${n.target.join(" ")} ${n.failureSummary?.replace(/\s+/g, " ") ?? ""}`)
          .join(" | ")}`,
    )
    .join("\n");
}

test("the target page has no WCAG A/AA violation", async ({ page }) => {
  await openTarget(page);
  // With a running query's verdict at the top (its evidence toggle, its link).
  await expect(page.locator('[data-testid="verdicts"] [data-testid="finding"]').first()).toBeVisible({ timeout: 120_000 });
  // With a running scan's row and its progress bar on the page: the most the page draws.
  await expect(page.getByRole("progressbar").first()).toBeVisible({ timeout: 120_000 });
  const { violations } = await new AxeBuilder({ page }).withTags(TAGS).analyze();
  expect(violations, describe(violations)).toEqual([]);
});

test("the fleet page has no WCAG A/AA violation", async ({ page }) => {
  await page.goto("/");
  await expect(page.getByTestId("fleet-row").first()).toBeVisible({ timeout: 60_000 });
  const { violations } = await new AxeBuilder({ page }).withTags(TAGS).analyze();
  expect(violations, describe(violations)).toEqual([]);
});
