import { describe, expect, it } from "vitest";
import { exportFileName, ticksToCsv } from "./export";
import { tick as fixture } from "../../../test/support/fixtures";

const tick = (seq: number, byState: Record<string, number>, waits: Record<string, number>) =>
  fixture(seq, 1_700_000_000_000 + seq * 100, {
    aio: {
      inFlight: Object.values(byState).reduce((a, b) => a + b, 0),
      bytes: 131072,
      byState,
      byOperation: { readv: 1 },
      sync: 1,
      syncBytes: 8192,
    },
    workers: { busy: 1 },
    waits,
    active: 1,
  });

describe("ticksToCsv", () => {
  it("has a column per state and wait event seen, zero where absent", () => {
    const csv = ticksToCsv([tick(1, { SUBMITTED: 2 }, { "IO:AioIoCompletion": 1 }), tick(2, { COMPLETED_IO: 1 }, { CPU: 1 })]);
    const [header, a, b] = csv.trim().split("\n");
    expect(header).toBe(
      "seq,t,time,async_in_flight,async_bytes,sync_handles,sync_bytes,io_workers_configured,io_workers_alive,io_workers_busy,active_backends,async_COMPLETED_IO,async_SUBMITTED,wait_CPU,wait_IO:AioIoCompletion",
    );
    expect(a).toBe("1,1700000000100,2023-11-14T22:13:20.100Z,2,131072,1,8192,3,3,1,1,0,2,0,1");
    expect(b.split(",").slice(-4)).toEqual(["1", "0", "1", "0"]);
  });

  it("on 19, the pool's bound and its launches and exits", () => {
    const t = fixture(1, 1_700_000_000_100, { workers: { configured: 2, max: 8, alive: 3, busy: 3, launched: 1 } });
    const [header, row] = ticksToCsv([t]).trim().split("\n");
    // The configured column is the pool's io_min_workers, named for it; 18's io_workers_configured is not a 19 setting.
    expect(header).toContain(
      ",sync_bytes,io_min_workers,io_workers_alive,io_workers_busy,active_backends,io_workers_max,io_workers_launched,io_workers_exited",
    );
    expect(header).not.toContain("io_workers_configured");
    expect(row.split(",").slice(7, 14)).toEqual(["2", "3", "3", "0", "8", "1", "0"]);
  });

  it("quotes cells that need it", () => {
    const csv = ticksToCsv([tick(1, {}, { 'Lock:"x",y': 1 })]);
    expect(csv.split("\n")[0]).toContain('"wait_Lock:""x"",y"');
  });
});

describe("exportFileName", () => {
  it("names the target and the range", () => {
    expect(exportFileName("demo", 0, 1000, "csv")).toBe("inflight-demo-1970-01-01T00-00-00-000Z_1970-01-01T00-00-01-000Z.csv");
  });
});
