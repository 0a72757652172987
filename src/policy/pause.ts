import type { ControlRecord } from "./control";
import { holdRank, isPausedState } from "./control";
import type { Role } from "./roles";

export interface PauseRequest {
  actorId: string;
  role: Role;
  reason: string;
  until: Date | null;
}

/**
 * paused: the agent was running and is now held.
 * raised: already paused; the hold is now at the actor's higher level, and theirs.
 * kept: already paused at an equal or higher level; only the audit log records this attempt.
 */
export type PauseOutcome = "paused" | "raised" | "kept";

export interface PauseDecision {
  outcome: PauseOutcome;
  next: ControlRecord;
}

/**
 * Any known user may pause. Hold levels only go up while paused (design.md section 4). A running agent goes
 * to DRAINING, not straight to PAUSED: work already in flight finishes first (see drain.ts).
 */
export function decidePause(current: ControlRecord, request: PauseRequest, now: Date): PauseDecision {
  const held: ControlRecord = {
    state: "DRAINING",
    holdLevel: request.role,
    reason: request.reason,
    setBy: request.actorId,
    setAt: now,
    until: request.until,
  };
  if (!isPausedState(current.state)) return { outcome: "paused", next: held };
  if (holdRank(request.role) > holdRank(current.holdLevel)) {
    // The stronger hold becomes the record: its owner, reason and until are what a resumer must answer to.
    return { outcome: "raised", next: { ...held, state: current.state } };
  }
  return { outcome: "kept", next: current };
}
