import "server-only";
import pg from "pg";
import type { EmbeddedServer } from "./embedded";

export const DEMO_IO_METHODS = ["sync", "worker"] as const;
export type DemoIoMethod = (typeof DEMO_IO_METHODS)[number];

/** ALTER SYSTEM the io settings of the demo server (they apply at restart). */
export async function alterSystem(server: EmbeddedServer, settings: { io_method?: string; io_workers?: number }): Promise<void> {
  const client = new pg.Client({ connectionString: server.superuserUrl("postgres"), application_name: "inflight-demo-admin" });
  await client.connect();
  try {
    if (settings.io_method !== undefined) {
      if (!(DEMO_IO_METHODS as readonly string[]).includes(settings.io_method)) throw new Error(`io_method must be one of ${DEMO_IO_METHODS.join(", ")}`);
      await client.query(`ALTER SYSTEM SET io_method = ${client.escapeLiteral(settings.io_method)}`);
    }
    if (settings.io_workers !== undefined) {
      if (!Number.isInteger(settings.io_workers) || settings.io_workers < 1 || settings.io_workers > 32) throw new Error("io_workers must be 1 to 32");
      await client.query(`ALTER SYSTEM SET io_workers = ${settings.io_workers}`);
    }
  } finally {
    await client.end();
  }
}
