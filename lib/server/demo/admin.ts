import "server-only";
import pg from "pg";
import { IO_METHODS, IO_WORKERS_RANGE } from "../../schemas/enums";
import type { DemoRestartBody } from "../../schemas/params";
import type { EmbeddedServer } from "./embedded";

/** The worker counts the demo sets: io_workers on 18, the pool's bounds on 19. */
const WORKER_COUNTS = ["io_workers", "io_min_workers", "io_max_workers"] as const;

/** ALTER SYSTEM the io settings of the demo server (they apply at restart). */
export async function alterSystem(server: EmbeddedServer, settings: DemoRestartBody): Promise<void> {
  const client = new pg.Client({ connectionString: server.superuserUrl("postgres"), application_name: "inflight-demo-admin" });
  await client.connect();
  try {
    if (settings.io_method !== undefined) {
      if (!(IO_METHODS as readonly string[]).includes(settings.io_method))
        throw new Error(`io_method must be one of ${IO_METHODS.join(", ")}`);
      await client.query(`ALTER SYSTEM SET io_method = ${client.escapeLiteral(settings.io_method)}`);
    }
    for (const name of WORKER_COUNTS) {
      const n = settings[name];
      if (n === undefined) continue;
      const { min, max } = IO_WORKERS_RANGE;
      if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${name} must be ${min} to ${max}`);
      await client.query(`ALTER SYSTEM SET ${name} = ${n}`);
    }
  } finally {
    await client.end();
  }
}
