import { expect, test } from "@playwright/test";
import { openTarget } from "./helpers";

// Query text comes from the monitored server: it is shown as text, never
// parsed as HTML. The demo cannot be made to run a hostile query from here,
// so this checks the rendering itself: every query text element holds one
// text node and no element, and the page's CSP forbids eval.

test("query text is rendered as text, and the page's CSP has no unsafe-eval", async ({ page }) => {
  test.setTimeout(120_000);
  const dialogs: string[] = [];
  page.on("dialog", (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  const response = await page.goto("/targets/demo");
  const csp = response?.headers()["content-security-policy"] ?? "";
  expect(csp).toContain("script-src 'self'");
  expect(csp).not.toContain("unsafe-eval");
  expect(response?.headers()["x-content-type-options"]).toBe("nosniff");

  await openTarget(page);
  const texts = page.getByTestId("query-text");
  await expect.poll(() => texts.count(), { timeout: 60_000 }).toBeGreaterThan(0);
  const cells = await texts.evaluateAll((els) =>
    els.map((e) => ({
      elements: e.children.length,
      html: e.innerHTML,
      escaped: (e.textContent ?? "").replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/\u00a0/g, "&nbsp;"),
    })),
  );
  for (const cell of cells) {
    expect(cell.elements).toBe(0);
    expect(cell.html).toBe(cell.escaped);
  }
  // The demo's own queries have quotes and operators that must survive as text.
  await expect(texts.filter({ hasText: "'%zz%'" }).first()).toBeAttached({ timeout: 60_000 });
  expect(dialogs).toEqual([]);
});

test("hostile view parameters in a link are ignored, not rendered", async ({ page }) => {
  test.setTimeout(120_000);
  const dialogs: string[] = [];
  page.on("dialog", (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await openTarget(page, `/targets/demo?view=<img src=x onerror=alert(1)>&from=1&to=x&run=${encodeURIComponent('"><script>alert(2)</script>')}`);
  await expect(page.getByTestId("frozen-bar")).toHaveCount(0);
  await expect(page.getByTestId("run-timeline")).toHaveCount(0);
  // The page rewrites its URL with what it understood: the default view only.
  await expect(page).toHaveURL(/\/targets\/demo\?view=5m$/);
  await expect(page.locator('img[src="x"]')).toHaveCount(0);
  expect(dialogs).toEqual([]);
});
