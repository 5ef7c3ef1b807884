import { describe, expect, it } from "vitest";
import { ioSample, runSample, tick } from "../../test/support/fixtures";
import { PLOT_INSET } from "@/components/charts/theme";
import { LINE_MAX_POINTS, STACK_MAX_POINTS, waitsChart, workersChart } from "@/lib/view/activity";
import { IN_FLIGHT_MAX_POINTS, inFlightChart } from "@/lib/view/inflight";
import { RUN_LINE_MAX_POINTS, runLine, runSamples } from "@/lib/view/runs";
import { MIN_POINTS, pixelBudget, plotPixels, PX_PER_POINT, redrawMs, REDRAW_PX } from "@/lib/view/series";
import { IO_MAX_POINTS, throughputChart } from "@/lib/view/throughput";

// Issue 21: a full 15-minute window at 10 samples a second is 9,000 ticks;
// a chart draws no more points than one per PX_PER_POINT pixel columns of its plot.
const WINDOW_MS = 15 * 60_000;
const SPIKE_AT = 9_000 * 37; // one sample with far more in flight than any other
const ticks = Array.from({ length: WINDOW_MS / 100 }, (_, i) => {
  const inFlight = i === SPIKE_AT / 100 ? 64 : (i * 7919) % 9;
  return tick(i + 1, i * 100, {
    aio: { inFlight, bytes: inFlight * 131_072, byState: { SUBMITTED: inFlight }, sync: i % 3 },
    workers: { busy: i % 4 },
    waits: { "IO:AioIoCompletion": i % 5, CPU: i % 2 },
    active: (i % 5) + (i % 2),
    runs: [runSample("1:0", i % 2 ? "aio" : "cpu", inFlight, 0)],
  });
});
const io = Array.from({ length: WINDOW_MS / 1000 }, (_, i) => ioSample(100_000 + i, i * 1000, i % 7, (i % 7) * 131_072));
const rates = Array.from({ length: WINDOW_MS / 500 }, (_, i) => ({ t: i * 500, bytesPerSec: ((i * 31) % 11) * 1e6, scans: 1 }));
const domain = { from: 0, to: WINDOW_MS - 100 };

describe("the points a chart is handed for a full window", () => {
  for (const box of [320, 640, 960, 1500]) {
    const plot = Math.floor((box - PLOT_INSET) / PX_PER_POINT);
    it(`stay within one point per ${PX_PER_POINT} of the plot's ${box - PLOT_INSET} pixel columns in a box of ${box} px`, () => {
      const inflight = inFlightChart(ticks, domain, 100, [], pixelBudget(box, IN_FLIGHT_MAX_POINTS, PLOT_INSET));
      expect(inflight.rows.length).toBeLessThanOrEqual(plot);
      expect(inflight.max).toBe(64); // the spike is kept
      expect(workersChart(ticks, domain, 100, [], pixelBudget(box, LINE_MAX_POINTS, PLOT_INSET)).rows.length).toBeLessThanOrEqual(plot);
      expect(waitsChart(ticks, domain, 100, [], pixelBudget(box, STACK_MAX_POINTS, PLOT_INSET)).rows.length).toBeLessThanOrEqual(plot);
      const throughput = throughputChart(io, rates, domain, [], pixelBudget(box, IO_MAX_POINTS, PLOT_INSET));
      for (const series of [throughput.rows, throughput.counted, throughput.live]) expect(series.length).toBeLessThanOrEqual(plot);
      const run = runLine(runSamples(ticks, "1:0"), 100, [], pixelBudget(box, RUN_LINE_MAX_POINTS, PLOT_INSET));
      expect(run.length).toBeLessThanOrEqual(plot);
      expect(Math.max(...run.map((r) => r.inFlight ?? 0))).toBe(64);
    });
  }

  it("are the chart's own budget until its box is measured", () => {
    expect(pixelBudget(null, IN_FLIGHT_MAX_POINTS, PLOT_INSET)).toBe(IN_FLIGHT_MAX_POINTS);
    expect(pixelBudget(4000, IN_FLIGHT_MAX_POINTS, PLOT_INSET)).toBe(IN_FLIGHT_MAX_POINTS);
  });

  it("are redrawn when the view has moved by REDRAW_PX pixel columns, not every column", () => {
    const plotPx = 640 - PLOT_INSET;
    expect(PX_PER_POINT).toBe(2);
    expect(REDRAW_PX).toBe(4);
    expect(redrawMs(WINDOW_MS, plotPx)).toBeCloseTo((4 * WINDOW_MS) / plotPx, 6);
    // a 15-minute window in an 860 px plot: a redraw every 4.2 s
    expect(redrawMs(WINDOW_MS, 860)).toBeCloseTo(4186, 0);
    expect(redrawMs(WINDOW_MS, 0)).toBe(WINDOW_MS); // no plot at all: no division by zero
  });

  it("pace a box narrower than its axes by the same floor as its points, not by a whole span", () => {
    for (const box of [0, 40, PLOT_INSET, PLOT_INSET + 10]) {
      const px = plotPixels(box, IN_FLIGHT_MAX_POINTS, PLOT_INSET);
      expect(px).toBe(box > 0 ? MIN_POINTS * PX_PER_POINT : IN_FLIGHT_MAX_POINTS * PX_PER_POINT);
      expect(redrawMs(WINDOW_MS, px)).toBeLessThan(WINDOW_MS / 4);
    }
    expect(pixelBudget(PLOT_INSET + 10, IN_FLIGHT_MAX_POINTS, PLOT_INSET)).toBe(MIN_POINTS);
    // measured and wide: the plot itself, and the points one per PX_PER_POINT of it
    expect(plotPixels(900, IN_FLIGHT_MAX_POINTS, PLOT_INSET)).toBe(900 - PLOT_INSET);
  });
});
