import { describe, expect, it } from "vitest";
import { ActivityRow, AioRow, RelationRow } from "./rows";

const activity = {
  pid: 1,
  leader_pid: null,
  backend_type: "client backend",
  state: "active",
  wait_event_type: null,
  wait_event: null,
  query_id: null,
  query_start_ms: 1,
  state_change_ms: 1,
  datid: 5,
  usesysid: 10,
  query: "select 1",
  conf_load_ms: null,
};

describe("row schemas", () => {
  it("keep a pg_aios handle whose columns are NULL (a handle handed out, not yet defined)", () => {
    const parsed = AioRow.safeParse({ pid: 1, handles: [["HANDED_OUT", null, null, null, null]] });
    expect(parsed.success).toBe(true);
    expect(ActivityRow.safeParse({ ...activity, query: null }).success).toBe(true);
  });

  it("still reject a row of the wrong shape", () => {
    expect(ActivityRow.safeParse({ ...activity, pid: "one" }).success).toBe(false);
  });

  it("take a relation never counted (relpages 0) as an unknown size", () => {
    expect(RelationRow.parse({ name: "public.t", blocks: null })).toEqual({ name: "public.t", blocks: null });
    expect(RelationRow.parse({ name: "public.t", blocks: "12" })).toEqual({ name: "public.t", blocks: 12 });
  });
});
