import type { ControlRecord } from "./control";

/**
 * What a draining pause does next (design.md section 4):
 * - complete: nothing outbound is in flight any more; the record may read PAUSED.
 * - deadline: the drain deadline passed with work still in flight; that work goes to NEEDS_REVIEW and the
 *   pause completes anyway, so a hung destination cannot keep an agent half-paused.
 * - wait: work is still in flight and there is time left.
 * - none: the record is not draining (already paused, or resumed meanwhile).
 */
export type DrainStep = "complete" | "deadline" | "wait" | "none";

export function decideDrain(
  control: Pick<ControlRecord, "state">,
  deadline: Date | null,
  inFlight: number,
  now: Date,
): DrainStep {
  if (control.state !== "DRAINING") return "none";
  if (inFlight === 0) return "complete";
  if (deadline && now.getTime() >= deadline.getTime()) return "deadline";
  return "wait";
}

/** HOLDFAST_DRAIN_TIMEOUT's default: a pause's drain, a maintenance window's and a SIGTERM's. */
export const DEFAULT_DRAIN_TIMEOUT_MS = 30_000;
