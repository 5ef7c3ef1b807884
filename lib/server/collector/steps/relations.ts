import "server-only";
import type { Session } from "../session";
import { OK, type Step, type StepContext, type StepOutcome } from "./step";

/**
 * Names and sizes of relation files seen in pg_aios: one look-up a tick at
 * most, off the sampling statement. Sizes come from the catalog
 * (pg_class.relpages), never from a function that locks the relation.
 */
export class RelationsStep implements Step {
  readonly aspect = "relations" as const;

  constructor(private readonly ctx: StepContext) {}

  reset(session: Session): void {
    this.ctx.window.names.setConnected(Number(session.caps.database_oid), session.caps.database);
  }

  due(): boolean {
    return true;
  }

  async run(session: Session, now: number): Promise<StepOutcome> {
    const { window } = this.ctx;
    const file = window.names.nextWanted();
    if (!file) return OK;
    if (file.dbOid !== window.names.connectedDatabase) {
      // Only the connected database's catalog can name it: the database's name (names.sql) will do.
      window.names.set(file.dbOid, file.filenode, null, now);
      return OK;
    }
    const [row] = await session.run("relation", { values: [file.filenode] });
    window.names.set(file.dbOid, file.filenode, row?.name ? { name: row.name, blocks: row.blocks } : null, now);
    return OK;
  }
}
