import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { pgBinMajor, pgBinProblem } from "./pg-bin";

// A bin folder whose postgres says a given version: what INFLIGHT_DEMO_PG_BIN is checked by.
const dirs: string[] = [];
function binSaying(version: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "inflight-pgbin-"));
  dirs.push(dir);
  for (const name of ["postgres", "pg_ctl", "initdb"]) {
    writeFileSync(path.join(dir, name), `#!/bin/sh\necho "${name} (PostgreSQL) ${version}"\n`);
    chmodSync(path.join(dir, name), 0o755);
  }
  return dir;
}
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe("INFLIGHT_DEMO_PG_BIN", () => {
  it.each([
    ["18.4", 18, null],
    ["19rc1 (Debian 19~rc1-1)", 19, null],
    ["19.0", 19, null],
    ["17.6", 17, /holds PostgreSQL 17\.6, not 18 or 19: the demo needs PostgreSQL 18 or 19/],
  ] as const)("postgres %s: major %i", (version, major, problem) => {
    const dir = binSaying(version);
    expect(pgBinMajor(dir)).toMatchObject({ major });
    const said = pgBinProblem(dir);
    if (problem) expect(said).toMatch(problem);
    else expect(said).toBeNull();
  });
});
