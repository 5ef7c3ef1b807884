// A PostgreSQL 18 of the test's own, in a temp dir: for tests that stop,
// restart or reconfigure the server (never the run's shared one).
import { chmod, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { startEmbedded, type EmbeddedServer } from "../../lib/server/demo/embedded";

export interface OwnPg {
  server: EmbeddedServer;
  /** stops the server (immediate: nothing to keep) and removes its files */
  dispose(): Promise<void>;
}

/** `port`: a given one (a server taking over another's address, as an upgrade does); default a free one. */
export async function startOwnPg(settings?: Record<string, string>, port?: number): Promise<OwnPg> {
  const root = await mkdtemp(path.join(os.tmpdir(), "inflight-own-pg-"));
  // The postgres OS user must pass through to the data dir.
  await chmod(root, 0o755);
  const server = await startEmbedded({ dataDir: path.join(root, "pg"), settings, port, log: () => undefined });
  return {
    server,
    async dispose() {
      await server.stop("immediate").catch(() => undefined);
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** The same URL with another user and password. */
export function withCredentials(url: string, user: string, password: string): string {
  const u = new URL(url);
  u.username = user;
  u.password = encodeURIComponent(password);
  return u.toString();
}

/** The same URL through another port on loopback (a proxy). */
export function viaPort(url: string, port: number): string {
  const u = new URL(url);
  u.port = String(port);
  return u.toString();
}
