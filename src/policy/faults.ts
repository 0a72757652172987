/**
 * Test-only fault points for the process-recovery tests and the chaos suite. One injected `Faults` object
 * carries them into every layer; in production it is `NO_FAULTS` and nothing is checked.
 * - before-approve-commit: before the approval commits (SQLite: inside its transaction; PostgreSQL: before its one
 *   statement is sent);
 * - after-approve-commit: right after the approval (and its outbox row) committed, before any dispatch;
 * - before-claim-commit: inside the delivery claim's transaction, its rows leased, before it commits;
 * - after-dispatch-mark: the claim committed (DISPATCHED is persisted), the request is not sent yet;
 * - before-acknowledge: the destination applied the effect and answered 2xx; not yet recorded here;
 * - after-acknowledge: the acknowledgement is recorded;
 * - release-batch: after a committed release step the process stops delivering and hangs, so a test's
 *   SIGKILL lands between steps.
 *
 * A point is armed to crash (HOLDFAST_CRASH_AT: SIGKILL on the spot) or to pause (HOLDFAST_PAUSE_AT: one log
 * line, "test pause point reached", then that path hangs), so a driver picks the signal and the moment.
 */
export const FAULT_POINTS = [
  "before-approve-commit",
  "after-approve-commit",
  "before-claim-commit",
  "after-dispatch-mark",
  "before-acknowledge",
  "after-acknowledge",
  "release-batch",
] as const;
export type FaultPoint = (typeof FAULT_POINTS)[number];

export interface Faults {
  /** Whether this point is armed, to crash or to pause (a caller that must prepare before the fault asks first). */
  armed(point: FaultPoint): boolean;
  /** Reaching a point armed to crash kills the process at once (SIGKILL), as a power cut would. */
  reach(point: FaultPoint): void;
  /** Whether this point is armed to pause: the caller then awaits `halt`. */
  pausing(point: FaultPoint): boolean;
  /** At a point armed to pause: says so once (the log line a driver waits for) and never resolves. */
  halt(point: FaultPoint): Promise<void>;
}

export const NO_FAULTS: Faults = {
  armed: () => false,
  reach: () => {},
  pausing: () => false,
  halt: async () => {},
};
