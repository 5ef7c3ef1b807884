// Query runs: a backend's statement (pid + query start), parallel workers
// folded into their leader, accumulated sample by sample.
import type { QueryRun, Relation, Verdict } from "../schemas/window";
import type { HandleBlocks, RunObservation } from "./derive";

/** Resolves a relation file to its name and size; null while unknown. */
export type RelationLookup = (dbOid: number, filenode: number) => Relation | null;

const MAX_ENDED_RUNS = 2000;

export function verdictOf(run: Pick<QueryRun, "aioSamples" | "aioWaitSamples" | "readWaitSamples" | "syncSamples">): Verdict {
  if (run.aioSamples > 0 || run.aioWaitSamples > 0) return "async";
  if (run.readWaitSamples > 0 || run.syncSamples > 0) return "sync";
  return "cpu";
}

interface RunAccum extends QueryRun {
  blocks: Map<string, HandleBlocks>;
}

export class RunStore {
  private open = new Map<string, RunAccum>();
  private ended: RunAccum[] = [];

  constructor(private readonly lookup: RelationLookup) {}

  /** Applies one successful sample: runs not seen in it have ended. */
  observe(t: number, observations: RunObservation[]): void {
    const seen = new Set<string>();
    for (const obs of observations) {
      seen.add(obs.sample.id);
      const run = this.open.get(obs.sample.id) ?? this.begin(t, obs);
      this.apply(run, t, obs);
    }
    for (const [id, run] of this.open) {
      if (seen.has(id)) continue;
      run.endedAt = t;
      run.inFlightNow = 0;
      run.bytesInFlight = 0;
      this.open.delete(id);
      this.ended.push(run);
    }
    if (this.ended.length > MAX_ENDED_RUNS) this.ended.splice(0, this.ended.length - MAX_ENDED_RUNS);
  }

  /** Ends every open run: the connection was lost, nothing more is known. */
  closeAll(t: number): void {
    this.observe(t, []);
  }

  evictBefore(cutoff: number): void {
    let drop = 0;
    while (drop < this.ended.length && (this.ended[drop].endedAt ?? 0) < cutoff) drop++;
    if (drop) this.ended.splice(0, drop);
  }

  /** Running first (newest first), then ended, newest first. */
  list(): QueryRun[] {
    const running = [...this.open.values()].sort((a, b) => b.startedAt - a.startedAt);
    const ended = [...this.ended].reverse();
    return [...running, ...ended].map((run) => this.view(run));
  }

  get(id: string): QueryRun | undefined {
    const run = this.open.get(id) ?? this.ended.find((r) => r.id === id);
    return run && this.view(run);
  }

  private begin(t: number, obs: RunObservation): RunAccum {
    const row = obs.leader;
    const run: RunAccum = {
      id: obs.sample.id,
      pid: row.pid,
      leaderPid: null,
      workerPids: [],
      query: row.query ?? "",
      queryId: row.query_id,
      database: row.datname,
      user: row.usename,
      backendType: row.backend_type ?? "",
      startedAt: row.query_start_ms ?? t,
      firstSeen: t,
      lastSeen: t,
      endedAt: null,
      samples: 0,
      ioWaitSamples: 0,
      aioWaitSamples: 0,
      readWaitSamples: 0,
      otherIoWaitSamples: 0,
      cpuSamples: 0,
      aioSamples: 0,
      syncSamples: 0,
      inFlightNow: 0,
      maxInFlight: 0,
      sumInFlight: 0,
      bytesInFlight: 0,
      verdict: "cpu",
      relations: [],
      progress: null,
      progressRelation: null,
      blocks: new Map(),
    };
    this.open.set(run.id, run);
    return run;
  }

  private apply(run: RunAccum, t: number, obs: RunObservation): void {
    const { state, inFlight, syncInFlight } = obs.sample;
    run.lastSeen = t;
    run.samples++;
    if (state === "aio") run.aioWaitSamples++;
    else if (state === "read") run.readWaitSamples++;
    else if (state === "io") run.otherIoWaitSamples++;
    else if (state === "cpu") run.cpuSamples++;
    if (state === "aio" || state === "read" || state === "io") run.ioWaitSamples++;
    if (inFlight > 0) run.aioSamples++;
    if (state === "read" || syncInFlight > 0) run.syncSamples++;
    run.inFlightNow = inFlight;
    run.maxInFlight = Math.max(run.maxInFlight, inFlight);
    run.sumInFlight += inFlight;
    run.bytesInFlight = obs.bytesInFlight;
    for (const pid of obs.workerPids) if (!run.workerPids.includes(pid)) run.workerPids.push(pid);
    for (const [key, blocks] of obs.blocks) {
      const seen = run.blocks.get(key);
      if (!seen || blocks.last > seen.last) run.blocks.set(key, blocks);
    }
    run.verdict = verdictOf(run);
  }

  private view(run: RunAccum): QueryRun {
    const { blocks, ...rest } = run;
    const relations: Relation[] = [];
    let progress: number | null = null;
    let progressRelation: string | null = null;
    for (const b of blocks.values()) {
      const rel = this.lookup(b.dbOid, b.filenode) ?? { name: `file ${b.dbOid}/${b.filenode}`, dbOid: b.dbOid, filenode: b.filenode, blocks: null };
      relations.push(rel);
      // The relation read furthest into gives the scan's progress.
      if (rel.blocks && rel.blocks > 0) {
        const share = Math.min(1, (b.last + 1) / rel.blocks);
        if (progress === null || share > progress) {
          progress = share;
          progressRelation = rel.name;
        }
      }
    }
    return { ...rest, workerPids: [...rest.workerPids], relations, progress, progressRelation };
  }
}
