/**
 * What the process counts as it works, for `/metrics`. One injected `MetricsSink` carries it into every layer
 * (handlers through `ctx.metrics`, the delivery loop and the release loop through their options), as `Faults`
 * is carried; `NO_METRICS` counts nothing. Each call is one in-memory increment: nothing here waits.
 * Labels are small fixed sets (no run, user or agent ids).
 */
export type ApprovalOutcome = "approved" | "denied" | "expired" | "superseded";
/** An attempt's result: 2xx, another status, sent without an answer, or not sent at all (design.md section 6). */
export type AttemptResult = "acknowledged" | "rejected" | "no_answer" | "not_sent";
/** Where a repeated request was recognised and did nothing twice. */
export type DuplicateStage = "decision" | "inbound_event" | "run_create" | "lookup";

export interface MetricsSink {
  /** A waiting approval left `waiting`; `waitSeconds` since its current version was submitted. */
  approvalResolved(outcome: ApprovalOutcome, waitSeconds: number): void;
  releaseStarted(): void;
  /** A release was marked DONE by this process; `seconds` since it was opened. */
  releaseFinished(seconds: number): void;
  deliveryAttempt(kind: string, result: AttemptResult): void;
  /** An item was given up (FAILED) after its retries. */
  deliveryPermanentFailure(kind: string): void;
  duplicateSuppressed(stage: DuplicateStage): void;
  /**
   * A destination answered 2xx for an attempt whose lease had passed to another attempt: the effect may have
   * been applied twice (unless the destination deduplicates the key).
   */
  duplicateEffectDetected(): void;
}

const nothing = () => {};
export const NO_METRICS: MetricsSink = {
  approvalResolved: nothing,
  releaseStarted: nothing,
  releaseFinished: nothing,
  deliveryAttempt: nothing,
  deliveryPermanentFailure: nothing,
  duplicateSuppressed: nothing,
  duplicateEffectDetected: nothing,
};
