import "server-only";
import type { Session } from "../session";
import { READ, type StepContext, type StepOutcome } from "./step";

/**
 * Names and sizes of relation files seen in pg_aios: one look-up a tick at
 * most, off the sampling statement. Sizes come from the catalog
 * (pg_class.relpages), never from a function that locks the relation. Its
 * state is the window's (names.nextWanted): every tick, it reads what is
 * wanted there.
 */
export class RelationsStep {
  readonly aspect = "relations" as const;

  constructor(private readonly ctx: Pick<StepContext, "window">) {}

  reset(session: Session): void {
    this.ctx.window.names.setConnected(Number(session.caps.database_oid), session.caps.database);
  }

  async run(session: Session, now: number): Promise<StepOutcome> {
    const { window } = this.ctx;
    const file = window.names.nextWanted();
    if (!file) return READ;
    if (file.dbOid !== window.names.connectedDatabase) {
      // Only the connected database's catalog can name it: the database's name (names.sql) will do.
      window.names.set(file.dbOid, file.filenode, null, now);
      return READ;
    }
    const [row] = await session.run("relation", { values: [file.filenode] });
    window.names.set(file.dbOid, file.filenode, row?.name ? { name: row.name, blocks: row.blocks } : null, now);
    return READ;
  }
}
