import { describe, expect, it } from "vitest";
import { servedHosts } from "../config/hosts";
import { MAX_BODY_BYTES, checkHost, checkPath, checkWrite } from "./gate";

const config = { servedHosts: servedHosts("127.0.0.1", 3000, []), port: 3000 };
const OWN = "http://127.0.0.1:3000";
const JSON_TYPE = { "content-type": "application/json", "content-length": "16" };

describe("checkHost", () => {
  it("answers the loopback names on the port, and nothing else", () => {
    expect(checkHost(new Headers({ host: "127.0.0.1:3000" }), config)).toBeNull();
    expect(checkHost(new Headers({ host: "evil.example" }), config)).toMatchObject({ code: "wrong_host" });
    expect(checkHost(new Headers({ host: "evil.example:3000" }), config)).toMatchObject({ code: "wrong_host" });
  });
});

describe("checkPath", () => {
  it.each([
    ["/api/targets/demo/window", null],
    ["/api/targets/%E0%A4%A/window", "id"],
    ["/api/targets/%ZZ/stream", "id"],
    ["/targets/%E0%A4%A", "id"],
    ["/api/%E0%A4%A", "path"],
    ["/targets/de%20mo", null],
  ])("%s -> field %s", (path, field) => {
    const refusal = checkPath(path);
    if (field === null) expect(refusal).toBeNull();
    else expect(refusal).toEqual({ code: "bad_request", message: `${field}: is not valid percent-encoding`, field });
  });
});

describe("checkWrite", () => {
  const demo = "/api/targets/demo/demo";
  it.each<[string, string, string, Record<string, string>, string | null]>([
    ["a GET, whatever its headers", "GET", demo, { origin: "http://evil.example" }, null],
    ["the page's own POST (Origin)", "POST", demo, { host: "127.0.0.1:3000", origin: OWN, ...JSON_TYPE }, null],
    [
      "the page's own POST (Origin: null, Sec-Fetch-Site)",
      "POST",
      demo,
      { host: "127.0.0.1:3000", origin: "null", "sec-fetch-site": "same-origin", ...JSON_TYPE },
      null,
    ],
    [
      "another site (rebinding: Host and Origin agree on evil.example)",
      "POST",
      demo,
      { host: "127.0.0.1:3000", origin: "http://evil.example", ...JSON_TYPE },
      "cross_origin",
    ],
    [
      "another port of 127.0.0.1 (same site, not same origin)",
      "POST",
      demo,
      { host: "127.0.0.1:3000", origin: "http://127.0.0.1:4000", "sec-fetch-site": "same-site", ...JSON_TYPE },
      "cross_origin",
    ],
    [
      "an Origin that contradicts Sec-Fetch-Site",
      "POST",
      demo,
      { host: "127.0.0.1:3000", origin: "http://evil.example", "sec-fetch-site": "same-origin", ...JSON_TYPE },
      "cross_origin",
    ],
    ["no Origin and no Sec-Fetch-Site (a tool must send Origin)", "POST", demo, { host: "127.0.0.1:3000", ...JSON_TYPE }, "cross_origin"],
    ["Sec-Fetch-Site: none", "POST", demo, { host: "127.0.0.1:3000", "sec-fetch-site": "none", ...JSON_TYPE }, "cross_origin"],
    [
      "text/plain (a no-cors fetch)",
      "POST",
      demo,
      { host: "127.0.0.1:3000", origin: OWN, "content-type": "text/plain", "content-length": "16" },
      "unsupported_media_type",
    ],
    ["no Content-Type", "POST", demo, { host: "127.0.0.1:3000", origin: OWN, "content-length": "16" }, "unsupported_media_type"],
    [
      "JSON with a charset",
      "POST",
      demo,
      { host: "127.0.0.1:3000", origin: OWN, "content-type": "Application/JSON; charset=utf-8", "content-length": "16" },
      null,
    ],
    [
      "a body over the limit",
      "POST",
      demo,
      { host: "127.0.0.1:3000", origin: OWN, "content-type": "application/json", "content-length": String(MAX_BODY_BYTES + 1) },
      "too_large",
    ],
    [
      "a chunked body",
      "POST",
      demo,
      { host: "127.0.0.1:3000", origin: OWN, "content-type": "application/json", "transfer-encoding": "chunked" },
      "length_required",
    ],
    [
      "the sign-in form",
      "POST",
      "/api/auth/signin",
      { host: "127.0.0.1:3000", origin: OWN, "content-type": "application/x-www-form-urlencoded", "content-length": "40" },
      null,
    ],
    [
      "the sign-in form from another site",
      "POST",
      "/api/auth/signin",
      { host: "127.0.0.1:3000", origin: "http://evil.example", "content-type": "application/x-www-form-urlencoded" },
      "cross_origin",
    ],
    [
      "JSON to the sign-in form",
      "POST",
      "/api/auth/signin",
      { host: "127.0.0.1:3000", origin: OWN, ...JSON_TYPE },
      "unsupported_media_type",
    ],
    ["a DELETE from another site", "DELETE", demo, { host: "127.0.0.1:3000", origin: "http://evil.example" }, "cross_origin"],
  ])("%s -> %s", (_name, method, path, headers, code) => {
    const refusal = checkWrite(method, path, new Headers(headers));
    if (code === null) expect(refusal).toBeNull();
    else expect(refusal?.code).toBe(code);
  });
});
