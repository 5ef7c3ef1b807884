// The demo's lab through the real built server, for the lab's tests: a
// server of the test's own (a demo folder and history file in a temp
// folder), its lab's POST and state, and the lab results its history keeps.
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { expect } from "vitest";
import { LabResult, LabState } from "../../lib/schemas/lab";
import { waitFor } from "./pg";
import { startServer, type RunningServer } from "./server";

export interface DemoLabServer {
  app: RunningServer;
  /** INFLIGHT_DEMO_DIR: the demo's data directory is demo-pg in it, the history history.db */
  dir: string;
  post(body: unknown, type?: string): Promise<Response>;
  state(): Promise<LabState>;
  /** the state once the lab is no longer running */
  finished(): Promise<LabState>;
  /** a POST that must be a 400 naming `field`, its message matching */
  refused(body: unknown, field: string, message: RegExp): Promise<void>;
  stop(): Promise<void>;
}

export async function startDemoLab(tableMb: number, labMs = 240_000): Promise<DemoLabServer> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "inflight-lab-"));
  chmodSync(dir, 0o755);
  const app = await startServer({
    INFLIGHT_DEMO_DIR: dir,
    INFLIGHT_DEMO_TABLE_MB: String(tableMb),
    INFLIGHT_HISTORY_FILE: path.join(dir, "history.db"),
  });
  await waitFor(
    "the demo up",
    async () => (await fetch(`${app.url}/api/targets`).then((r) => r.json())).targets[0].status === "up",
    120_000,
    250,
  );
  const post = (body: unknown, type = "application/json") =>
    fetch(`${app.url}/api/targets/demo/lab`, {
      method: "POST",
      headers: { "Content-Type": type, Origin: app.url },
      body: JSON.stringify(body),
    });
  const state = async () => LabState.parse(await (await fetch(`${app.url}/api/targets/demo/lab`)).json());
  return {
    app,
    dir,
    post,
    state,
    finished: () => waitFor("the lab to end", async () => ((await state()).state === "running" ? null : state()), labMs, 250),
    async refused(body, field, message) {
      const res = await post(body);
      expect(res.status).toBe(400);
      const { error } = await res.json();
      expect(error.field).toBe(field);
      expect(error.message).toMatch(message);
    },
    async stop() {
      await app.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The lab results a history file keeps, oldest first, with the history each is in. */
export function labResultsIn(file: string): { history: string; result: LabResult }[] {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare("SELECT history, result FROM lab_results ORDER BY at").all() as { history: string; result: string }[]).map((r) => ({
      history: r.history,
      result: LabResult.parse(JSON.parse(r.result)),
    }));
  } finally {
    db.close();
  }
}
