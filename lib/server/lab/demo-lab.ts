import "server-only";
import { summarize } from "../../model/lab/summary";
import { labResult } from "../../model/lab/result";
import type { IoMethod } from "../../schemas/enums";
import type { LabExport, LabRequest, LabResult, LabState } from "../../schemas/lab";
import type { LabStartBody } from "../../schemas/params";
import type { EmbeddedServer } from "../demo/embedded";
import { dropFromPageCache } from "../demo/evict";
import { withClient, type LabCluster } from "./cluster";
import { presetStatement } from "./presets";
import { runLab, type LabOutcome } from "./runner";
import { prepareLab, type LabStatement, type PreparedLab } from "./statement";

/** The role the demo lab's statements run as: it may read every table, and do nothing else. */
export const LAB_ROLE = "inflight_lab";

const ENSURE_ROLE = `
DO $$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = '${LAB_ROLE}') THEN CREATE ROLE ${LAB_ROLE} NOLOGIN; END IF;
END $$;
GRANT pg_read_all_data TO ${LAB_ROLE};
CREATE EXTENSION IF NOT EXISTS pg_buffercache`;

export interface DemoLabDeps {
  server: EmbeddedServer;
  database: string;
  table: string;
  /** stops the demo workload for the lab; resolves with what starts it again */
  pauseWorkload(): Promise<() => void>;
  /** a restart of the demo controls is under way */
  restarting(): boolean;
  /** a restart the lab made, by its server start: not one to compare around */
  noteRestart(startedAt: number): void;
  /** a lab that ended with every value measured: kept in the demo server's history */
  record(result: LabResult): void;
  log(line: string): void;
}

export class LabBusyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LabBusyError";
  }
}

/** By name: see isLabInputError. */
export const isLabBusyError = (err: unknown): err is LabBusyError => err instanceof Error && err.name === "LabBusyError";

const DROPPED = "the tables' and their indexes' files dropped from the OS page cache with dd iflag=nocache";
const COLD = `restarted into the io_method before every run (PostgreSQL's buffers empty), ${DROPPED}`;
const COLD_RELOAD = `set by ALTER SYSTEM and a reload before every run (no restart), PostgreSQL's buffers emptied with pg_buffercache_evict_all(), ${DROPPED}`;

const IDLE: LabState = {
  state: "idle",
  request: null,
  startedAt: null,
  finishedAt: null,
  progress: { done: 0, total: 0, phase: "" },
  runs: [],
  summary: [],
  error: null,
  restoredTo: null,
  cold: null,
};

/** The labs' A/B as a button, on the demo's embedded server: one lab at a time. */
export class DemoLab {
  private current: LabState = IDLE;
  private outcome: LabOutcome | null = null;
  private serverVersion: string | null = null;
  private controller: AbortController | null = null;
  private running: Promise<void> | null = null;

  constructor(private readonly deps: DemoLabDeps) {}

  get state(): LabState {
    return this.current;
  }

  get busy(): boolean {
    return this.running !== null;
  }

  private get cluster(): LabCluster {
    const { server, database } = this.deps;
    return {
      url: server.superuserUrl(database),
      dataDir: server.dataDir,
      restart: () => server.restart(),
      dropCache: dropFromPageCache,
      cold: COLD,
    };
  }

  private request(body: LabStartBody, prepared: PreparedLab): LabRequest {
    const { query, runs, lever, values, concurrency } = body;
    const methods = lever === "io_method" ? (values as IoMethod[]) : [prepared.origin.method];
    return {
      query,
      sql: prepared.statement.sql,
      settings: prepared.statement.settings.map(([n, v]) => [n, v]),
      methods,
      runs,
      lever,
      values,
      concurrency,
    };
  }

  /** Checks the request (LabInputError names the field), then runs it in the background. */
  async start(body: LabStartBody): Promise<LabState> {
    if (this.running) throw new LabBusyError("a lab is already running");
    if (this.deps.restarting()) throw new LabBusyError("a restart of the demo server is under way");
    const cluster = this.cluster;
    const statement = await withClient(cluster.url, async (client): Promise<LabStatement> => {
      await client.query(ENSURE_ROLE);
      return body.query === "custom"
        ? { sql: body.sql!, settings: [], readRole: LAB_ROLE, custom: true }
        : presetStatement(client, body.query, this.deps.table, LAB_ROLE);
    });
    const prepared = await prepareLab(cluster, statement, body.lever, body.values);
    if (this.running) throw new LabBusyError("a lab is already running");
    const total = body.values.length * body.runs;
    this.serverVersion = prepared.serverVersion;
    this.outcome = null;
    this.current = {
      ...IDLE,
      state: "running",
      request: this.request(body, prepared),
      startedAt: Date.now(),
      progress: { done: 0, total, phase: "pausing the demo workload" },
      cold:
        body.lever === "io_method"
          ? COLD
          : prepared.evictIn
            ? COLD_RELOAD
            : COLD_RELOAD.replace(
                /PostgreSQL's buffers emptied with pg_buffercache_evict_all\(\)/,
                "PostgreSQL's buffers NOT emptied (no pg_buffercache)",
              ),
      explainIo: prepared.explainIo,
    };
    const controller = new AbortController();
    this.controller = controller;
    this.running = this.run(body, prepared, controller).finally(() => {
      this.running = null;
      this.controller = null;
    });
    return this.current;
  }

  /** Never rejects: whatever fails ends as the state "failed" with one line. */
  private async run(body: LabStartBody, prepared: PreparedLab, controller: AbortController): Promise<void> {
    let resume: (() => void) | null = null;
    try {
      resume = await this.deps.pauseWorkload();
      const sessions = body.concurrency > 1 ? `, ${body.concurrency} sessions at once` : "";
      this.deps.log(`lab: ${body.query}, ${body.lever} ${body.values.join(" / ")}, ${body.runs} cold runs each${sessions}`);
      const outcome = await runLab(this.cluster, prepared, {
        lever: body.lever,
        values: body.values,
        concurrency: body.concurrency,
        runs: body.runs,
        signal: controller.signal,
        progress: (progress) => (this.current = { ...this.current, progress }),
        ran: (run) => {
          const runs = [...this.current.runs, run];
          this.current = { ...this.current, runs, summary: summarize(runs, body.values, body.lever) };
        },
        restarted: (at) => this.deps.noteRestart(at),
      });
      this.finish(outcome, body, prepared);
    } catch (err) {
      this.finish(
        { runs: this.current.runs, explains: [], error: (err as Error).message ?? String(err), restoredTo: null },
        body,
        prepared,
      );
    } finally {
      resume?.();
    }
  }

  private finish(outcome: LabOutcome, body: LabStartBody, prepared: PreparedLab): void {
    this.outcome = outcome;
    const summary = summarize(outcome.runs, body.values, body.lever);
    // One time for the end: the state's and the result the history keeps (the sizing view cites it by it).
    const finishedAt = Date.now();
    this.current = {
      ...this.current,
      state: outcome.error ? "failed" : "done",
      finishedAt,
      progress: { ...this.current.progress, done: outcome.runs.length, phase: outcome.error ? "stopped" : "done" },
      runs: outcome.runs,
      summary,
      error: outcome.error,
      restoredTo: outcome.restoredTo,
    };
    this.deps.log(outcome.error ? `lab: ${outcome.error}` : `lab: done, ${body.lever} back to ${outcome.restoredTo}`);
    const { query, lever, values, concurrency, runs } = body;
    const result = labResult(summary, {
      at: finishedAt,
      lever,
      values,
      concurrency,
      rounds: runs,
      query,
      sql: prepared.statement.sql,
      ioMethod: prepared.origin.method,
      serverVersion: prepared.serverVersion,
    });
    if (result) this.deps.record(result);
  }

  /** Stops a running lab and waits until io_method is back (a shutdown calls it first). */
  async stop(): Promise<void> {
    this.controller?.abort();
    await this.running?.catch(() => undefined);
  }

  exportJson(): LabExport {
    return { ...this.current, serverVersion: this.serverVersion, explains: this.outcome?.explains ?? [] };
  }
}
