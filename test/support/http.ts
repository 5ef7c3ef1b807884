// One HTTP request to the real server over its own socket, with what fetch
// will not let a test choose: the Host header and the local address the
// request comes from (any 127.x.y.z: the server sees another client).
import http from "node:http";

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

export interface RawRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** the client address, 127.0.0.1 unless given */
  from?: string;
  /** stop reading after the first chunk (a stream that does not end) */
  firstChunk?: boolean;
}

export function request(url: string, opts: RawRequest = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const headers = { ...opts.headers };
    const chunked = Object.keys(headers).some((h) => h.toLowerCase() === "transfer-encoding");
    if (opts.body !== undefined && !chunked) headers["Content-Length"] = String(Buffer.byteLength(opts.body));
    const req = http.request(url, { method: opts.method ?? "GET", headers, localAddress: opts.from, agent: false }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      const done = () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text });
      res.on("data", (chunk: string) => {
        text += chunk;
        if (opts.firstChunk) {
          req.destroy();
          done();
        }
      });
      res.on("end", done);
    });
    req.on("error", (err) => ((err as NodeJS.ErrnoException).code === "ECONNRESET" && opts.firstChunk ? undefined : reject(err)));
    req.setTimeout(20_000, () => req.destroy(new Error(`no answer from ${url} in 20 s`)));
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

/** The JSON error envelope of a refusal, or null when the body is not one. */
export function errorOf(res: RawResponse): { code: string; message: string; field?: string } | null {
  try {
    const body = JSON.parse(res.text) as { error?: { code: string; message: string; field?: string } };
    return body.error ?? null;
  } catch {
    return null;
  }
}
