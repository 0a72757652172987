import type { ControlRecord } from "./control";
import { isPausedState, RUNNING_CONTROL } from "./control";
import type { Role } from "./roles";

/** Who is asking to resume: a person with a role, or the trusted scheduler acting on a pause's `until`. */
export type ResumeActor = { kind: "user"; actorId: string; role: Role } | { kind: "scheduler" };

export type ResumeRefusal = "not_paused" | "creator_hold" | "forbidden";

export type ResumeDecision = { outcome: "resumed"; next: ControlRecord } | { outcome: ResumeRefusal };

/**
 * Members and supervisors cannot resume (a supervisor cannot overrule the principal); the principal can
 * resume anything but an admin hold (creator_hold); an admin can resume anything.
 */
export function decideResume(current: ControlRecord, actor: ResumeActor): ResumeDecision {
  if (!isPausedState(current.state)) return { outcome: "not_paused" };
  if (actor.kind === "scheduler") return { outcome: "resumed", next: RUNNING_CONTROL };
  if (actor.role === "admin") return { outcome: "resumed", next: RUNNING_CONTROL };
  if (actor.role === "principal") {
    return current.holdLevel === "admin" ? { outcome: "creator_hold" } : { outcome: "resumed", next: RUNNING_CONTROL };
  }
  return { outcome: "forbidden" };
}
