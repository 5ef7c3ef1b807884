import { describe, expect, it } from "vitest";
// @ts-expect-error plain ESM without types
import { targetsSetting } from "./inflight.mjs";

describe("inflight's target arguments as INFLIGHT_TARGETS", () => {
  it.each([
    { args: ["postgres://u@db1/a", "postgres://u@db2:5433/b"], want: "db1=postgres://u@db1/a,db2=postgres://u@db2:5433/b" },
    { args: ["postgres://u@db1/a", "postgresql://u@db1:5433/b"], want: "db1-5432=postgres://u@db1/a,db1-5433=postgresql://u@db1:5433/b" },
    { args: ["prod=postgres://u@db1/a", "postgres://u@prod/b"], want: "prod=postgres://u@db1/a,prod-2=postgres://u@prod/b" },
    { args: ["postgres://u@[::1]:5432/a", "postgres://u@h/b"], want: "1=postgres://u@[::1]:5432/a,h=postgres://u@h/b" },
    { args: ["postgres://u:p,w=x@h1/a", "postgres://u@h2/b"], want: "h1=postgres://u:p%2Cw=x@h1/a,h2=postgres://u@h2/b" },
  ])("$args", ({ args, want }) => expect(targetsSetting(args)).toBe(want));
});
