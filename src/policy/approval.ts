import crypto from "node:crypto";
import { canonicalJson } from "./canonical-json";

/** Approval state of a run (design.md section 5). Delivery state is kept apart, on the outbox item. */
export type RunState = "waiting" | "approved" | "denied" | "expired";

export type DecisionAction = "approve" | "deny";

/** Every answer a decision can get. `expired`: the run expired (the trusted scheduler's expiry) before it. */
export type DecisionResult =
  | "approved"
  | "denied"
  | "duplicate"
  | "conflict"
  | "stale"
  | "invalid_state"
  | "rejected"
  | "expired";

/** What the rules need to know about a run. `reviewers` are user ids. */
export interface RunFacts {
  tenantId: string;
  state: string;
  version: number;
  digest: string;
  deadline: Date | null;
  reviewers: readonly string[];
}

/** A click or an API call. The actor is never part of it: it comes from the authenticated identity. */
export interface DecisionEvent {
  eventId: string;
  action: DecisionAction;
  version: number;
  digest: string;
}

export interface DecisionActor {
  id: string;
  tenantId: string;
}

/** An earlier event with the same id on the same run, as recorded. */
export interface RecordedEvent {
  fingerprint: string;
  result: DecisionResult;
}

export type RejectReason = "not_reviewer" | "other_tenant" | "deadline_passed";
/** Why a decision no longer matches the run: it names another version, or this version with another digest. */
export type StaleReason = "version" | "digest";

export type Decision =
  | { result: "approved" | "denied"; next: { state: RunState; version: number } }
  | { result: "duplicate"; recorded: DecisionResult }
  | { result: "conflict" | "invalid_state" | "expired" }
  | { result: "stale"; reason: StaleReason; currentVersion: number }
  | { result: "rejected"; reason: RejectReason };

/** Same id and same fingerprint is a transport retry; same id and another fingerprint is a conflict. */
export function decisionFingerprint(event: DecisionEvent, actorId: string): string {
  const content = canonicalJson({ action: event.action, actor: actorId, digest: event.digest, version: event.version });
  return crypto.createHash("sha256").update(content).digest("hex");
}

/**
 * The decision rules of design.md section 5, in their order: replay, version and digest, waiting state,
 * assigned reviewer of this tenant, deadline by the service clock (`now`; at or after the deadline is too
 * late). Only `approved` and `denied` change the run: to that state, at version + 1. A run that expired
 * answers `expired` to any new decision (its expiry moved the version on, which would otherwise read as
 * `stale` and hide what happened).
 */
export function decide(
  run: RunFacts,
  event: DecisionEvent,
  actor: DecisionActor,
  now: Date,
  recorded: RecordedEvent | null,
): Decision {
  if (recorded) {
    return recorded.fingerprint === decisionFingerprint(event, actor.id)
      ? { result: "duplicate", recorded: recorded.result }
      : { result: "conflict" };
  }
  if (run.state === "expired") return { result: "expired" };
  if (event.version !== run.version) return { result: "stale", reason: "version", currentVersion: run.version };
  if (event.digest !== run.digest) return { result: "stale", reason: "digest", currentVersion: run.version };
  if (run.state !== "waiting") return { result: "invalid_state" };
  if (actor.tenantId !== run.tenantId) return { result: "rejected", reason: "other_tenant" };
  if (!run.reviewers.includes(actor.id)) return { result: "rejected", reason: "not_reviewer" };
  if (run.deadline && now.getTime() >= run.deadline.getTime()) return { result: "rejected", reason: "deadline_passed" };
  const state: RunState = event.action === "approve" ? "approved" : "denied";
  return { result: state, next: { state, version: run.version + 1 } };
}

export type ExpiryDecision =
  | { result: "expired"; next: { state: RunState; version: number } }
  | { result: "not_due" | "invalid_state" };

/** The trusted scheduler's expiry: a run still waiting at or after its deadline becomes `expired`. */
export function expire(run: RunFacts, now: Date): ExpiryDecision {
  if (run.state !== "waiting") return { result: "invalid_state" };
  if (!run.deadline || now.getTime() < run.deadline.getTime()) return { result: "not_due" };
  return { result: "expired", next: { state: "expired", version: run.version + 1 } };
}
