import "server-only";
import { blockSizeOf } from "../../model/window/settings";
import { SampleRecorder, type SampleRows } from "../../model/history/samples";
import type { SamplesStatus } from "../../schemas/history";
import type { TargetWindow } from "../../model/window/window";
import { redactRuns } from "../payloads/redact";
import { redactFindings } from "../payloads/window";
import type { SampleSink } from "./samples";

/**
 * A collector's side of the history: after each tick, what the
 * recorder chose goes to the store's queue (memory only: the file is
 * written from the store's timer). Query text is redacted before it is
 * kept when INFLIGHT_REDACT is on.
 */
export class Recording {
  private readonly recorder = new SampleRecorder();

  constructor(
    private readonly sink: SampleSink,
    private readonly window: TargetWindow,
    private readonly redact: boolean,
  ) {}

  afterTick(now: number): void {
    this.write(this.recorder.next(now, this.view()));
  }

  /** At a stop: the second under way, the runs still running, the findings still holding. */
  finish(now: number): void {
    this.write(this.recorder.finish(now, this.view()));
  }

  status(): SamplesStatus {
    return this.sink.status();
  }

  private view() {
    const w = this.window;
    return {
      ticksSince: (seq: number) => w.ticksSince(seq),
      ioSince: (seq: number) => w.ioSince(seq),
      queries: () => w.queries(),
      findings: w.findings,
      blockSize: blockSizeOf(w.settings),
    };
  }

  private write(rows: SampleRows): void {
    if (this.redact && rows.findings.length)
      rows.findings = redactFindings(rows.findings, [...rows.runs, ...this.window.queries()], this.window.statements);
    if (this.redact && rows.runs.length) rows.runs = redactRuns(rows.runs, this.window.statements);
    this.sink.write(rows);
  }
}
