import "server-only";
import type { TargetInfo } from "../../schemas/target";
import type { TargetWindow } from "../../model/window/window";

/** What the payload builders read of a watched target (a Collector is one). */
export interface PayloadSource {
  info(): TargetInfo;
  readonly window: TargetWindow;
  /** INFLIGHT_REDACT: literals replaced in every query text that leaves the process */
  readonly redact: boolean;
}
