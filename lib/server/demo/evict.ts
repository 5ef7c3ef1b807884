import "server-only";

import { promises as fs } from "node:fs";
import os from "node:os";

import { run, summarize } from "./process";

// Making a read really cold without root sysctls (PG18-FACTS.md): each of
// a relation's segment files dropped from the OS page cache with
// `dd iflag=nocache count=0` (posix_fadvise DONTNEED). Only clean pages go:
// the server must have written them out first (a checkpoint, or a restart).

/** A relation's files: FILE, FILE.1, FILE.2 ... (1 GB segments). */
export async function segmentFiles(base: string): Promise<string[]> {
  const files: string[] = [];
  for (let segment = 0; ; segment++) {
    const file = segment === 0 ? base : `${base}.${segment}`;
    try {
      await fs.access(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return files;
      throw err;
    }
    files.push(file);
  }
}

/** Drops each file from the OS page cache; a dd that fails is an error naming the file. */
export async function dropFromPageCache(files: readonly string[]): Promise<void> {
  for (const file of files) {
    const result = await run("dd", [`if=${file}`, "iflag=nocache", "count=0", "status=none"], { runAs: null, cwd: os.tmpdir() });
    if (result.code !== 0) throw new Error(`evicting ${file} from the page cache failed (dd ${summarize(result)})`);
  }
}
