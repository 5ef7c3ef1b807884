import "server-only";
// Server-Sent Events framing (pure). JSON.stringify never emits a raw
// newline, so every payload is exactly one `data:` line.

export interface SseMessage {
  event?: string;
  id?: number | string;
  data: unknown;
}

export function formatEvent({ event, id, data }: SseMessage): string {
  let out = "";
  if (event !== undefined) out += `event: ${event}\n`;
  if (id !== undefined) out += `id: ${id}\n`;
  out += `data: ${JSON.stringify(data)}\n\n`;
  return out;
}

export function formatComment(text: string): string {
  return `: ${text.replace(/[\r\n]+/g, " ")}\n\n`;
}

export function formatRetry(ms: number): string {
  return `retry: ${Math.max(0, Math.round(ms))}\n\n`;
}

/** Parses a stream of SSE text back into messages (for tests and tools). */
export function parseEvents(text: string): { event: string; id: string | null; data: string }[] {
  const out: { event: string; id: string | null; data: string }[] = [];
  for (const block of text.split(/\n\n/)) {
    if (!block.trim()) continue;
    let event = "message";
    let id: string | null = null;
    const data: string[] = [];
    for (const line of block.split("\n")) {
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "event") event = value;
      else if (field === "id") id = value;
      else if (field === "data") data.push(value);
    }
    if (data.length) out.push({ event, id, data: data.join("\n") });
  }
  return out;
}
