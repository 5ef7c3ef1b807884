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
    this.ctx.window.setConnectedDatabase(Number(session.caps.database_oid), session.caps.database);
  }

  due(): boolean {
    return true;
  }

  async run(session: Session, now: number): Promise<StepOutcome> {
    const { window } = this.ctx;
    const file = window.nextWantedRelation();
    if (!file) return OK;
    if (file.dbOid !== window.connectedDatabase) {
      // Only the connected database's catalog can name it: the database's name (names.sql) will do.
      window.setRelation(file.dbOid, file.filenode, null, now);
      return OK;
    }
    const [row] = await session.run("relation", { values: [file.filenode] });
    window.setRelation(file.dbOid, file.filenode, row?.name ? { name: row.name, blocks: row.blocks } : null, now);
    return OK;
  }
}
