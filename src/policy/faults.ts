/**
 * Test-only fault points for the process-recovery tests. One injected `Faults` object carries them into every
 * layer; in production it is `NO_FAULTS` and nothing is checked.
 * - before-approve-commit: inside the approval's transaction, before it commits;
 * - after-approve-commit: right after the approval (and its outbox row) committed, before any dispatch;
 * - after-dispatch-mark: DISPATCHED is persisted, the request is not sent yet;
 * - before-acknowledge: the destination applied the effect and answered 2xx; not yet recorded here;
 * - release-batch: after a committed release step the process stops delivering and hangs, so a test's
 *   SIGKILL lands between steps.
 */
export const FAULT_POINTS = [
  "before-approve-commit",
  "after-approve-commit",
  "after-dispatch-mark",
  "before-acknowledge",
  "release-batch",
] as const;
export type FaultPoint = (typeof FAULT_POINTS)[number];

export interface Faults {
  /** Whether this point is armed (a caller that must prepare before the fault asks first). */
  armed(point: FaultPoint): boolean;
  /** Reaching an armed point kills the process at once (SIGKILL), as a power cut would. */
  reach(point: FaultPoint): void;
}

export const NO_FAULTS: Faults = { armed: () => false, reach: () => {} };
