import "server-only";
import type { Client } from "pg";
import type { Relation } from "../schemas/window";
import { RelationRow } from "../window/rows";
import { runStatement } from "./statements";
import { z } from "zod";

const REFRESH_MS = 30_000;
const MAX_ENTRIES = 5000;
const DatabaseRow = z.object({ oid: z.number(), datname: z.string() });

interface Entry {
  relation: Relation | null;
  at: number;
}

/**
 * Names and sizes of the relation files seen in pg_aios, each looked up once
 * (refreshed every 30 s while in use), off the sampling statement: at most
 * one look-up per sample.
 */
export class RelationCache {
  private entries = new Map<string, Entry>();
  private pending = new Set<string>();
  private databaseOid = 0;
  private databaseNames = new Map<number, string>();
  private namesLoaded = false;

  reset(databaseOid: number, database: string): void {
    if (databaseOid !== this.databaseOid) this.entries.clear();
    this.databaseOid = databaseOid;
    this.databaseNames.set(databaseOid, database);
    this.namesLoaded = false;
  }

  get(dbOid: number, filenode: number): Relation | null {
    const key = `${dbOid}/${filenode}`;
    const entry = this.entries.get(key);
    if (!entry || Date.now() - entry.at > REFRESH_MS) this.pending.add(key);
    return entry?.relation ?? this.fallback(dbOid, filenode);
  }

  async resolvePending(client: Client): Promise<void> {
    const key = this.pending.values().next().value;
    if (key === undefined) return;
    this.pending.delete(key);
    const [dbOid, filenode] = key.split("/").map(Number);
    if (dbOid !== this.databaseOid && dbOid !== 0) {
      if (!this.namesLoaded) {
        this.namesLoaded = true;
        for (const row of await runStatement(client, "databases", DatabaseRow)) this.databaseNames.set(row.oid, row.datname);
      }
      this.store(key, this.fallback(dbOid, filenode));
      return;
    }
    const [row] = await runStatement(client, "relation", RelationRow, [filenode]);
    this.store(key, row?.name ? { name: row.name, dbOid, filenode, blocks: row.blocks } : this.fallback(dbOid, filenode));
  }

  private store(key: string, relation: Relation): void {
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(key, { relation, at: Date.now() });
  }

  private fallback(dbOid: number, filenode: number): Relation {
    const db = this.databaseNames.get(dbOid);
    return { name: db ? `${db}: file ${filenode}` : `database ${dbOid}: file ${filenode}`, dbOid, filenode, blocks: null };
  }
}
