import type { DecisionAction, DecisionResult, RejectReason, StaleReason } from "../../../policy/approval";
import { decide, decisionFingerprint } from "../../../policy/approval";
import { actionKey } from "../../../policy/ids";
import { runName } from "../../../policy/run-ids";
import { findDecisionEvent } from "../../../store/approvals/decisions";
import { findRun, type RunRecord } from "../../../store/approvals/runs";
import type { KnownUser } from "../../../store/directory/directory";
import { findAgentById } from "../../../store/directory/directory";
import type { HandlerContext } from "../context";
import { commitRun } from "./commit-run";
import { destinationContract } from "./destinations";
import { type ApprovalRunView, approvalRunView, isCheckpointRun, seesDeliveryDetail } from "./run-view";

/** One approve/deny, from the API or a chat button. The actor is the authenticated user, never the payload. */
export interface DecideRunCommand {
  runId: string;
  /** Stable across transport retries; for a chat click, the platform's own interaction id. */
  eventId: string;
  action: DecisionAction;
  version: number;
  digest: string;
  actor: KnownUser;
}

/**
 * `not_found`: no such run in the actor's tenant (another tenant's run does not exist for them).
 * `reason` comes with `rejected` (which rule refused) and with `stale` (`version` or `digest`, plus the
 * run's `currentVersion`), so chat and API clients can say what happened. `R` is how the run is shown.
 */
export type DecisionOutcome<R> =
  | { result: Exclude<DecisionResult, "stale" | "rejected">; run: R }
  | { result: "rejected"; run: R; reason: RejectReason }
  | { result: "stale"; run: R; reason: StaleReason; currentVersion: number }
  | { result: "not_found"; run: null };

export type DecideRunResult = DecisionOutcome<ApprovalRunView>;

/** The decision that moved the run, as a reader names it. */
export interface DecidingView {
  result: string;
  by: string | null;
  at: string;
}

/**
 * The run as a decision left it, from what the decision itself knows: the record after a won commit (the
 * one read before it, moved on in memory), or the record as read when nothing was written. `won`: the
 * decision this click committed.
 */
export interface DecidedRun {
  record: RunRecord;
  won: DecidingView | null;
}

type WithoutRun<T> = T extends unknown ? Omit<T, "run"> : never;
/** An outcome before the run is attached. */
type Answer = WithoutRun<Exclude<DecisionOutcome<unknown>, { result: "not_found" }>>;

/** The API's answer: the run's full view, read after the decision. */
export async function decideRun(ctx: HandlerContext, command: DecideRunCommand): Promise<DecideRunResult> {
  const decided = await recordDecision(ctx, command);
  if (decided.result === "not_found") return decided;
  const { db } = ctx.store;
  const run = (await findRun(db, decided.run.record.id))!;
  const view = await approvalRunView(db, run, await seesDeliveryDetail(db, command.actor, run.agentId));
  return { ...decided, run: view } as DecideRunResult;
}

/**
 * Decides once, and a lost race once more on the fresh record (it then reads as duplicate, stale or
 * invalid_state). Reads the run, the event id's earlier decision and (approve) the agent; writes in one
 * transaction; reads nothing after it.
 */
export async function recordDecision(
  ctx: HandlerContext,
  command: DecideRunCommand,
): Promise<DecisionOutcome<DecidedRun>> {
  const { db } = ctx.store;
  for (let round = 0; round < 2; round++) {
    const run = await findRun(db, command.runId);
    // A checkpoint-only run has no packet to decide on: for a decision it is not an approval run at all.
    if (!run || run.tenantId !== command.actor.tenantId || isCheckpointRun(run))
      return { result: "not_found", run: null };
    const outcome = await decideOnce(ctx, run, command);
    if (outcome !== "lost") {
      ctx.log.info(
        { run: run.id, event: command.eventId, actor: command.actor.id, result: outcome.answer.result },
        "decision",
      );
      return { ...outcome.answer, run: outcome.run } as DecisionOutcome<DecidedRun>;
    }
  }
  return { result: "invalid_state", run: { record: (await findRun(db, command.runId))!, won: null } };
}

type Decided = { answer: Answer; run: DecidedRun };

async function decideOnce(ctx: HandlerContext, run: RunRecord, command: DecideRunCommand): Promise<Decided | "lost"> {
  const now = ctx.now();
  const recorded = await findDecisionEvent(ctx.store.db, run.id, command.eventId);
  const decision = decide(
    run,
    command,
    command.actor,
    now,
    recorded ? { fingerprint: recorded.fingerprint, result: recorded.result as DecisionResult } : null,
  );
  const unchanged = (answer: Answer): Decided => ({ answer, run: { record: run, won: null } });
  if (decision.result === "rejected") return unchanged({ result: decision.result, reason: decision.reason });
  if (decision.result === "stale")
    return unchanged({ result: "stale", reason: decision.reason, currentVersion: decision.currentVersion });
  if (decision.result === "duplicate") ctx.metrics?.duplicateSuppressed("decision");
  if (decision.result !== "approved" && decision.result !== "denied") return unchanged({ result: decision.result });

  const approve = decision.result === "approved";
  const won = await commitRun(ctx, run, decision.result, {
    next: decision.next,
    at: now,
    event: {
      eventId: command.eventId,
      fingerprint: decisionFingerprint(command, command.actor.id),
      actorId: command.actor.id,
      action: command.action,
      version: command.version,
      digest: command.digest,
      result: decision.result,
    },
    outbox: approve ? await plannedAction(ctx, run) : undefined,
    faults: approve ? ctx.faults : undefined,
  });
  if (!won) return "lost" as const;
  if (approve) ctx.faults?.reach("after-approve-commit");
  ctx.events.emit("run.changed", run.id);
  if (approve) ctx.events.emit("outbox.planned");
  const after: RunRecord = { ...run, ...decision.next, decidedBy: command.actor.id, decidedAt: now };
  const deciding = { result: decision.result, by: command.actor.name, at: now.toISOString() };
  return { answer: { result: decision.result }, run: { record: after, won: deciding } };
}

/** The approved packet version's outbox row; the contract is read from config now and travels with it. */
async function plannedAction(ctx: HandlerContext, run: RunRecord) {
  const agent = await findAgentById(ctx.store.db, run.agentId);
  return {
    id: actionKey(run.id, run.version, run.operation),
    kind: "action" as const,
    tenantId: run.tenantId,
    agentId: run.agentId,
    runId: run.id,
    digest: run.digest,
    destination: run.destination,
    contract: (agent ? destinationContract(agent, run.destination) : undefined) ?? "none",
    payload: {
      run: runName(run.tenantId, run.id),
      operation: run.operation,
      version: run.version,
      digest: run.digest,
      packet: JSON.parse(run.packet),
    },
  };
}
