import { describe, expect, it } from "vitest";
import { HttpError, parseOr400 } from "./route";
import { LastEventId, StreamQuery, WindowQuery } from "../../schemas/params";

function fieldOf(run: () => unknown): { field?: string; message: string } {
  try {
    run();
  } catch (err) {
    if (err instanceof HttpError) return { field: err.field, message: err.message };
    throw err;
  }
  throw new Error("no error");
}

describe("parseOr400", () => {
  it.each([
    ["an unknown parameter by its own name", () => parseOr400(WindowQuery, { sinse: "1" }, "query"), "sinse", /sinse: is not a parameter/],
    ["a bad value by its key", () => parseOr400(StreamQuery, { since: "x" }, "query"), "since", /since: must be a whole number/],
    [
      "a bare value by where it came from",
      () => parseOr400(LastEventId, "9".repeat(50), "Last-Event-ID"),
      "Last-Event-ID",
      /Last-Event-ID: is too long/,
    ],
  ])("names %s", (_name, run, field, message) => {
    const err = fieldOf(run);
    expect(err.field).toBe(field);
    expect(err.message).toMatch(message);
  });
});
