import { expect, test } from "@playwright/test";
import { SizingResponse } from "../lib/schemas/sizing";

// Issue 41's sizing view on the demo: once the demo's workload has run its
// cold scans, every lever has a verdict on the page, and the page shows the
// API's own verdicts, headlines and figures for the same range. Bad ranges
// are a 400 naming the field.

const api = "/api/targets/demo/sizing";

test("the demo's sizing view: a verdict per lever, the figures the API gives", async ({ page, request }) => {
  // The demo's scans on disk: at least one run read asynchronously in the last hour.
  await expect
    .poll(
      async () => {
        const r = SizingResponse.parse(await (await request.get(`${api}?range=1h`)).json());
        const eic = r.levers.find((l) => l.lever === "effective_io_concurrency");
        return r.sampledMs >= 15_000 && /^[1-9]\d* runs? read asynchronously/.test(eic?.figures[0]?.text ?? "");
      },
      { timeout: 150_000, intervals: [2000] },
    )
    .toBe(true);
  // A range that ended a while ago: every row of it is on disk (written every 5 s), for the API and the page alike.
  const to = Date.now() - 15_000;
  const from = to - 3_600_000;
  const res = await request.get(`${api}?from=${from}&to=${to}`);
  expect(res.status()).toBe(200);
  const sized = SizingResponse.parse(await res.json());
  expect(sized.levers.length).toBeGreaterThanOrEqual(5);
  console.log(
    `[sizing.spec] ${Math.round(sized.sampledMs / 1000)} s sampled: ${sized.levers.map((l) => `${l.headline} (${l.figures[0]?.text ?? l.reason})`).join("; ")}`,
  );

  await page.goto(`/targets/demo/sizing?from=${from}&to=${to}`);
  const rows = page.getByTestId("sizing-lever");
  await expect(rows).toHaveCount(sized.levers.length);
  for (const l of sized.levers) {
    const row = page.locator(`[data-testid="sizing-lever"][data-lever="${l.lever}"]`);
    await expect(row).toHaveAttribute("data-verdict", l.verdict);
    await expect(row.getByTestId("sizing-headline")).toHaveText(l.headline);
    await row.getByTestId("sizing-reason").click();
    await expect(row.getByTestId("sizing-figure")).toHaveText(l.figures.map((f) => f.text));
    await expect(row.getByTestId("sizing-lab")).toHaveCount(l.lab.length);
  }
  // Reached from the target page's header.
  await page.goto("/targets/demo");
  await page.getByTestId("sizing-link").click();
  await expect(page).toHaveURL(/\/targets\/demo\/sizing$/);
  await expect(page.getByTestId("sizing-lever").first()).toBeVisible();
});

test("a bad range is a 400 naming the field", async ({ request }) => {
  for (const [query, field] of [
    ["range=2h", "range"],
    ["from=10", "to"],
    ["from=20&to=10", "to"],
    ["range=1h&from=1&to=2", "range"],
    ["since=1", "since"],
  ] as const) {
    const res = await request.get(`${api}?${query}`);
    expect(res.status(), query).toBe(400);
    expect((await res.json()).error.field, query).toBe(field);
  }
});
