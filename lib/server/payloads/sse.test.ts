import { describe, expect, it } from "vitest";
import { formatComment, formatEvent, formatRetry, parseEvents } from "./sse";

describe("SSE framing", () => {
  it("frames an event with id and one data line, and parses it back", () => {
    const text = formatEvent({ event: "tick", id: 7, data: { a: "line1\nline2", b: [1, 2] } });
    expect(text).toBe('event: tick\nid: 7\ndata: {"a":"line1\\nline2","b":[1,2]}\n\n');
    expect(parseEvents(text + formatComment("ping") + formatRetry(1000))).toEqual([
      { event: "tick", id: "7", data: '{"a":"line1\\nline2","b":[1,2]}' },
    ]);
  });

  it("keeps comments on one line", () => {
    expect(formatComment("a\nb")).toBe(": a b\n\n");
  });

  it("defaults the event name to message", () => {
    expect(parseEvents("data: 1\n\n")).toEqual([{ event: "message", id: null, data: "1" }]);
  });
});
