import type { DeliveryCrashPoint } from "../queue/delivery/delivery-loop";

/**
 * Test-only crash points for the process-recovery tests: with `HOLDFAST_CRASH_AT=<point>` the process kills
 * itself with SIGKILL the first time it reaches that point, exactly as a power cut would. Unset (always, in
 * production) the hook is absent and nothing is checked.
 * - before-approve-commit: inside the approval's transaction, before it commits;
 * - after-approve-commit: right after the approval (and its outbox row) committed, before any dispatch;
 * - after-dispatch-mark: DISPATCHED is persisted, the request is not sent yet;
 * - before-acknowledge: the destination applied the effect and answered 2xx; not yet recorded here.
 * - release-batch: after the first committed release batch the process stops delivering and hangs, so the
 *   test's SIGKILL lands between batches (src/queue/held/runtime.ts).
 */
export type CrashPoint = "before-approve-commit" | "after-approve-commit" | DeliveryCrashPoint | "release-batch";

export const CRASH_POINTS: readonly CrashPoint[] = [
  "before-approve-commit",
  "after-approve-commit",
  "after-dispatch-mark",
  "before-acknowledge",
  "release-batch",
];

export function crashHook(setting: CrashPoint | undefined): ((point: CrashPoint) => void) | undefined {
  if (!setting) return undefined;
  return (point) => {
    if (point === setting) process.kill(process.pid, "SIGKILL");
  };
}
