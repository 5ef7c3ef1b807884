import type { Metadata } from "next";
import type { ReactNode } from "react";
import { Providers } from "@/components/providers";
import "./globals.css";

// Every page is rendered per request, the not-found one too: each carries
// its request's CSP nonce on its scripts (proxy.ts), which a page rendered
// at build time could not.
export const dynamic = "force-dynamic";

export const metadata: Metadata = {
  title: "inflight",
  description: "PostgreSQL asynchronous I/O, live",
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-screen bg-slate-50 text-slate-900 antialiased">
        <Providers>{children}</Providers>
      </body>
    </html>
  );
}
