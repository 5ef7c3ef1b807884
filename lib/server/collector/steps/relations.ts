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
  private databasesLoaded = false;

  constructor(private readonly ctx: StepContext) {}

  reset(session: Session): void {
    this.databasesLoaded = false;
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
      // Only the connected database's catalog can name it: the other database's name will do.
      if (!this.databasesLoaded) {
        this.databasesLoaded = true;
        window.setDatabases(await session.run("databases"));
      }
      window.setRelation(file.dbOid, file.filenode, null, now);
      return OK;
    }
    const [row] = await session.run("relation", { values: [file.filenode] });
    window.setRelation(file.dbOid, file.filenode, row?.name ? { name: row.name, blocks: row.blocks } : null, now);
    return OK;
  }
}
