// Query runs: a backend's statement (pid + query start), parallel workers
// folded into their leader, accumulated sample by sample.
import type { QueryRun, Relation } from "../../schemas/runs";
import { mergeBlocks, runId, waitKey, type RunBackend, type RunObservation } from "./derive";
import { noteWait } from "./run-now";
import { countsOf, foldWaits, handleShares, noteHandles } from "./run-waits";
import type { ProfileRead } from "./wait-profile";
import { groupUnmatched, leaderOf, missedRuns, type ExactSpan } from "./missed-runs";
import { SessionStatements } from "./session-statements";
import { missedAccum, missedText, type MissedContext } from "./missed-accum";
import { isOwn } from "./stat-statements";
import { advanceSpan, spanCovered } from "./scan-span";
import { notePosition } from "./time-left";
import { blankRun, buildRun, RATE_SPAN_MS, sameFiles, type RunAccum } from "./run-accum";
import { verdictOf } from "./verdict";

/** A relation file's name and size as far as they are known (a pure read). */
export type RelationLookup = (dbOid: number, filenode: number) => Relation;

const MAX_ENDED_RUNS = 2000;

/** When `run` ended, by what its backend does now: null when that is not known (the backend is gone). */
function endedBy(run: Pick<RunAccum, "id" | "startedAt">, backend: RunBackend | undefined): number | null {
  if (!backend) return null;
  if (backend.runId === run.id) return backend.idleSinceMs;
  return backend.queryStartMs > run.startedAt ? backend.queryStartMs : null;
}

export class RunStore {
  private open = new Map<string, RunAccum>();
  private ended: RunAccum[] = [];
  /** missed runs whose text pg_stat_statements did not have yet */
  private readonly untitled = new Set<RunAccum>();
  /** the statements the polls saw end in sessions whose statements they miss */
  private readonly sessions = new SessionStatements();

  constructor(private readonly lookup: RelationLookup) {}

  /**
   * Applies one successful sample: runs not seen in it have ended, at `t`
   * unless their backend says sooner (`backends`, by pid): idle since the
   * statement ended (its state_change), or running the next statement, begun
   * after this one ended. Never before the last sample that saw it active.
   */
  observe(t: number, observations: RunObservation[], backends: ReadonlyMap<number, RunBackend> = new Map()): QueryRun[] {
    const endedNow: RunAccum[] = [];
    const seen = new Set<string>();
    this.sessions.note(backends);
    for (const obs of observations) {
      seen.add(obs.sample.id);
      const run = this.open.get(obs.sample.id) ?? this.begin(t, obs);
      this.apply(run, t, obs);
    }
    for (const [id, run] of this.open) {
      if (seen.has(id)) continue;
      run.endedAt = Math.min(t, Math.max(run.lastSeen, endedBy(run, backends.get(run.pid)) ?? t));
      run.inFlightNow = 0;
      run.bytesInFlight = 0;
      run.version++;
      this.open.delete(id);
      this.ended.push(run);
      endedNow.push(run);
    }
    if (this.ended.length > MAX_ENDED_RUNS) this.drop(this.ended.length - MAX_ENDED_RUNS);
    return endedNow.map((run) => this.view(run));
  }

  /**
   * pg_wait_sampling's profile deltas, into the runs open or ended lately
   * that overlap their span (run-waits.ts); those of no run make the runs the
   * polls missed (missed-runs.ts). `polls`: when the polls
   * were taken (moments no missed statement was running); `textOf`: a
   * queryid's text, where pg_stat_statements has it.
   */
  foldWaits(read: ProfileRead, slackMs: number, ctx: MissedContext = { polls: [], textOf: () => null }): void {
    const from = read.from - slackMs;
    let i = this.ended.length;
    while (i > 0 && (this.ended[i - 1].endedAt ?? 0) >= from) i--;
    const near = [...this.open.values(), ...this.ended.slice(i)];
    const { changed, unmatched } = foldWaits(near, read, slackMs);
    const seen = new Map<string, Set<number>>();
    for (const r of near) if (r.queryId) seen.set(r.queryId, (seen.get(r.queryId) ?? new Set()).add(r.pid));
    // Another inflight's statements, where their text says so, are not the workload.
    const groups = groupUnmatched(read, unmatched, seen, (id) => isOwn(ctx.textOf(id) ?? ""));
    this.sessions.stillRunning(new Set(read.deltas.map((d) => d.pid)), read.to);
    for (const g of groups) this.sessions.watch(leaderOf(g.byPid), read.to);
    const exact: ExactSpan = (g, pid) => {
      const known = (s: { startMs: number }) => this.has(runId(pid, s.startMs));
      const s = this.sessions.within(pid, g.queryId, read.from - read.offsetMs, read.to - read.offsetMs, known);
      return s && { start: s.startMs + read.offsetMs, end: s.endMs + read.offsetMs };
    };
    for (const m of missedRuns(groups, ctx.polls, exact)) this.addEnded(missedAccum(m, ctx.textOf(m.queryId), this.handlesOf(m.queryId)));
    for (const run of changed) {
      run.verdict = verdictOf(countsOf(run));
      run.version++;
    }
  }

  /** The missed runs' query text, once pg_stat_statements has it. */
  nameMissed(textOf: MissedContext["textOf"]): void {
    for (const run of this.untitled) {
      const text = run.queryId ? textOf(run.queryId) : null;
      if (text === null) continue;
      run.query = text;
      run.version++;
      this.untitled.delete(run);
    }
  }

  /** The shares of async and sync handles the polls saw in the last run of a query that they saw reading. */
  private handlesOf(queryId: string): { async: number; sync: number } | undefined {
    const polled = [...this.open.values(), ...this.ended].filter((r) => r.queryId === queryId && r.handlesSeen.length && !r.seenBy);
    const last = polled.sort((a, b) => b.lastSeen - a.lastSeen)[0];
    return last && handleShares(last.handlesSeen);
  }

  /** An ended run found late, in its place by end (the eviction and the fold read the list in that order). */
  private addEnded(run: RunAccum): void {
    let i = this.ended.length;
    while (i > 0 && (this.ended[i - 1].endedAt ?? 0) > (run.endedAt ?? 0)) i--;
    this.ended.splice(i, 0, run);
    if (run.query === missedText(run.queryId ?? "")) this.untitled.add(run);
  }

  /** Ends every open run: the connection was lost, nothing more is known. */
  closeAll(t: number): QueryRun[] {
    return this.observe(t, []);
  }

  evictBefore(cutoff: number): void {
    let drop = 0;
    while (drop < this.ended.length && (this.ended[drop].endedAt ?? 0) < cutoff) drop++;
    if (drop) this.drop(drop);
  }

  /** Lets go of the `n` oldest ended runs, and of their waiting for a text (else a run cut by the cap stayed held there). */
  private drop(n: number): void {
    for (const run of this.ended.splice(0, n)) this.untitled.delete(run);
  }

  openIds(): string[] {
    return [...this.open.keys()];
  }

  /** The sessions whose statements the polls miss, for the polls to ask about while they idle (session-statements.ts). */
  watchedPids(t: number): number[] {
    return this.sessions.pids(t);
  }

  private has(id: string): boolean {
    return this.open.has(id) || this.ended.some((r) => r.id === id);
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
      ...blankRun(obs.sample.id, row.pid, row.query_start_ms ?? t),
      query: row.query ?? "",
      queryId: row.query_id,
      database: row.datname,
      user: row.usename,
      backendType: row.backend_type ?? "",
      firstSeen: t,
      lastSeen: t,
    };
    this.open.set(run.id, run);
    return run;
  }

  private apply(run: RunAccum, t: number, obs: RunObservation): void {
    const { state, inFlight, syncInFlight } = obs.sample;
    // A statement sampled before parse analysis has no query id yet.
    run.queryId ??= obs.leader.query_id;
    run.lastSeen = t;
    run.samples++;
    if (state === "aio") run.aioWaitSamples++;
    else if (state === "read") run.readWaitSamples++;
    else if (state === "io") run.otherIoWaitSamples++;
    else if (state === "cpu") run.cpuSamples++;
    if (state === "aio" || state === "read" || state === "io") run.ioWaitSamples++;
    if (state === "read" || (syncInFlight ?? 0) > 0) run.syncSamples++;
    if (state === "aio" || (inFlight ?? 0) > 0) run.asyncSamples++;
    noteWait(run.recent, waitKey(obs.leader.wait_event_type, obs.leader.wait_event));
    // Without a pg_aios read the handles are unknown: keep the last known.
    if (obs.handles && inFlight !== null) {
      run.aioReadSamples++;
      if (inFlight > 0) run.aioSamples++;
      run.inFlightNow = inFlight;
      run.maxInFlight = Math.max(run.maxInFlight, inFlight);
      run.sumInFlight += inFlight;
      run.bytesInFlight = obs.handles.asyncBytes;
      run.sums.asyncHandles += obs.handles.async;
      run.sums.asyncBytes += obs.handles.asyncBytes;
      run.sums.syncHandles += obs.handles.sync;
      run.sums.syncBytes += obs.handles.syncBytes;
      noteHandles(run, t, inFlight, syncInFlight ?? 0);
    }
    for (const pid of obs.workerPids) if (!run.workerPids.includes(pid)) run.workerPids.push(pid);
    for (const [key, blocks] of obs.blocks) {
      run.asyncFiles.add(key);
      run.scans.set(key, advanceSpan(run.scans.get(key), blocks));
    }
    // A file read async gives its progress from those; one read only synchronously, from its combined reads.
    for (const [key, blocks] of obs.syncScans) if (!obs.blocks.has(key)) run.scans.set(key, advanceSpan(run.scans.get(key), blocks));
    for (const blocks of obs.syncFiles.values()) mergeBlocks(run.syncFiles, blocks);
    if (obs.blocks.size || obs.syncScans.size) this.noteCoverage(run, t);
    run.verdict = verdictOf(countsOf(run));
    run.version++;
  }

  private noteCoverage(run: RunAccum, t: number): void {
    let blocks = 0;
    for (const span of run.scans.values()) blocks = Math.max(blocks, spanCovered(span, this.relation(span.dbOid, span.filenode).blocks));
    run.coverage.push({ t, blocks });
    run.trail = notePosition(run.trail, { t, blocks });
    while (run.coverage.length > 2 && run.coverage[0].t < t - RATE_SPAN_MS) run.coverage.shift();
  }

  private relation(dbOid: number, filenode: number): Relation {
    return this.lookup(dbOid, filenode);
  }

  /** The files a run read, as the lookup names them now: scanned ones first, then single-block synchronous reads. */
  private namedFiles(run: RunAccum): Relation[] {
    const files: Relation[] = [];
    for (const span of run.scans.values()) files.push(this.relation(span.dbOid, span.filenode));
    // Single-block synchronous reads (index pages in 18) name a relation, never a progress.
    for (const [key, b] of run.syncFiles) if (!run.scans.has(key)) files.push(this.relation(b.dbOid, b.filenode));
    return files;
  }

  /**
   * The run as the wire has it. Built again only when the run took a sample
   * or ended since, or a file it read was named or sized since: every tick
   * asks for every run in the window (findings, queries), and an ended run,
   * most of them, never changes. One object per run and version, then, not
   * one per run and tick (the process's largest allocation: 2.4 MB/s at
   * 10/s with a 60 s window and a scan a second, all of it kept past a
   * young-generation collection and then thrown away).
   */
  private view(run: RunAccum): QueryRun {
    const files = this.namedFiles(run);
    const built = run.built;
    if (built && built.version === run.version && sameFiles(built.relations, files)) return built.view;
    const view = buildRun(run, files);
    run.built = { version: run.version, relations: files, view };
    return view;
  }
}
