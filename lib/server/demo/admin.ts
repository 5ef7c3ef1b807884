import "server-only";
import pg from "pg";
import { IO_METHODS, IO_WORKERS_RANGE } from "../../schemas/enums";
import type { EmbeddedServer } from "./embedded";


/** ALTER SYSTEM the io settings of the demo server (they apply at restart). */
export async function alterSystem(server: EmbeddedServer, settings: { io_method?: string; io_workers?: number }): Promise<void> {
  const client = new pg.Client({ connectionString: server.superuserUrl("postgres"), application_name: "inflight-demo-admin" });
  await client.connect();
  try {
    if (settings.io_method !== undefined) {
      if (!(IO_METHODS as readonly string[]).includes(settings.io_method)) throw new Error(`io_method must be one of ${IO_METHODS.join(", ")}`);
      await client.query(`ALTER SYSTEM SET io_method = ${client.escapeLiteral(settings.io_method)}`);
    }
    if (settings.io_workers !== undefined) {
      const { min, max } = IO_WORKERS_RANGE;
      if (!Number.isInteger(settings.io_workers) || settings.io_workers < min || settings.io_workers > max) throw new Error(`io_workers must be ${min} to ${max}`);
      await client.query(`ALTER SYSTEM SET io_workers = ${settings.io_workers}`);
    }
  } finally {
    await client.end();
  }
}
