// The page cache each of inflight's SQLite connections may fill (sqlite.mjs):
// read side by side with a connection at better-sqlite3's build default, by
// what the process holds outside V8 (RssAnon in /proc), not by the pragma.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CACHE_KB, openSqlite } from "./sqlite.mjs";

/**
 * What reading every page of the table once added to a fresh process's anonymous memory (MB), on a connection
 * opened by openSqlite or at better-sqlite3's default: a process of its own, since one that has freed memory
 * before (this worker ran other test files) reuses it, and the growth hides.
 */
function growthOfAFullRead(file: string, how: "ours" | "default"): number {
  const script = `
    import Database from "better-sqlite3";
    import { readFileSync } from "node:fs";
    import { openSqlite } from ${JSON.stringify(path.join(import.meta.dirname, "sqlite.mjs"))};
    const anon = () => Number(/RssAnon:\\s+(\\d+)/.exec(readFileSync("/proc/self/status", "utf8"))[1]) / 1024;
    const db = ${JSON.stringify(how)} === "ours" ? openSqlite(process.argv[1], 1000) : new Database(process.argv[1]);
    const before = anon();
    db.prepare("SELECT sum(length(body)) AS n FROM pages").get();
    console.log(anon() - before);`;
  const out = execFileSync(process.execPath, ["--conditions=react-server", "--input-type=module", "-e", script, file], {
    encoding: "utf8",
  });
  return Number(out.trim());
}

describe("the page cache of a history file's connection", () => {
  let dir: string;
  let file: string;

  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "inflight-sqlite-"));
    file = path.join(dir, "cache.db");
    const db = openSqlite(file, 1000);
    db.exec("CREATE TABLE pages (id INTEGER PRIMARY KEY, body BLOB)");
    const insert = db.prepare("INSERT INTO pages (body) VALUES (randomblob(3000))");
    // 40 MB: well past the 16 MB a connection at the build default may keep.
    db.transaction(() => {
      for (let i = 0; i < 13_000; i++) insert.run();
    })();
    db.pragma("wal_checkpoint(TRUNCATE)");
    db.close();
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it(`keeps at most about ${CACHE_KB / 1000} MB of a 40 MB file after reading all of it, where better-sqlite3's default keeps 16`, () => {
    const oursMb = growthOfAFullRead(file, "ours");
    const theirsMb = growthOfAFullRead(file, "default");
    console.log(
      `[sqlite] a full read of 40 MB: +${oursMb.toFixed(1)} MB at cache_size -${CACHE_KB}, +${theirsMb.toFixed(1)} MB at the build's default`,
    );
    expect(oursMb).toBeLessThan(CACHE_KB / 1000 + 3);
    expect(theirsMb).toBeGreaterThan(12);
  });
});
