import type { DecisionAction, DecisionResult, RejectReason, StaleReason } from "../../../policy/approval";
import { decide, decisionFingerprint } from "../../../policy/approval";
import { actionKey, runName } from "../../../policy/ids";
import { commitDecision, findDecisionEvent } from "../../../store/approvals/decisions";
import { findRun, type RunRecord } from "../../../store/approvals/runs";
import type { KnownUser } from "../../../store/directory/directory";
import { findAgentById } from "../../../store/directory/directory";
import type { HandlerContext } from "../context";
import { destinationContract } from "./destinations";
import { waitedSeconds } from "./run-ids";
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
 * run's `currentVersion`), so chat and API clients can say what happened.
 */
export type DecideRunResult =
  | { result: Exclude<DecisionResult, "stale" | "rejected">; run: ApprovalRunView }
  | { result: "rejected"; run: ApprovalRunView; reason: RejectReason }
  | { result: "stale"; run: ApprovalRunView; reason: StaleReason; currentVersion: number }
  | { result: "not_found"; run: null };

type Outcome = Exclude<DecideRunResult, { result: "not_found" }>;
type WithoutRun<T> = T extends unknown ? Omit<T, "run"> : never;
/** An outcome before the run's view is attached. */
type Answer = WithoutRun<Outcome>;

export async function decideRun(ctx: HandlerContext, command: DecideRunCommand): Promise<DecideRunResult> {
  const { db } = ctx.store;
  // A lost race is decided again on the fresh record: it then reads as duplicate, stale or invalid_state.
  for (let round = 0; round < 2; round++) {
    const run = await findRun(db, command.runId);
    // A checkpoint-only run has no packet to decide on: for a decision it is not an approval run at all.
    if (!run || run.tenantId !== command.actor.tenantId || isCheckpointRun(run))
      return { result: "not_found", run: null };
    const outcome = await decideOnce(ctx, run, command);
    if (outcome !== "lost") {
      ctx.log.info(
        { run: run.id, event: command.eventId, actor: command.actor.id, result: outcome.result },
        "decision",
      );
      const detail = await seesDeliveryDetail(db, command.actor, run.agentId);
      const view = await approvalRunView(db, (await findRun(db, run.id))!, detail);
      return { ...outcome, run: view } as Outcome;
    }
  }
  const run = (await findRun(db, command.runId))!;
  return {
    result: "invalid_state",
    run: await approvalRunView(db, run, await seesDeliveryDetail(db, command.actor, run.agentId)),
  };
}

async function decideOnce(ctx: HandlerContext, run: RunRecord, command: DecideRunCommand): Promise<Answer | "lost"> {
  const { db } = ctx.store;
  const now = ctx.now();
  const recorded = await findDecisionEvent(db, run.id, command.eventId);
  const decision = decide(
    run,
    command,
    command.actor,
    now,
    recorded ? { fingerprint: recorded.fingerprint, result: recorded.result as DecisionResult } : null,
  );
  if (decision.result === "rejected") return { result: decision.result, reason: decision.reason };
  if (decision.result === "stale")
    return { result: "stale", reason: decision.reason, currentVersion: decision.currentVersion };
  if (decision.result === "duplicate") ctx.metrics?.duplicateSuppressed("decision");
  if (decision.result !== "approved" && decision.result !== "denied") return { result: decision.result };

  const approve = decision.result === "approved";
  const contract = approve ? await contractOf(ctx, run) : undefined;
  const won = await commitDecision(ctx.store, {
    runId: run.id,
    tenantId: run.tenantId,
    agentId: run.agentId,
    fromVersion: run.version,
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
    outbox: approve
      ? {
          id: actionKey(run.id, run.version, run.operation), // the approved packet version
          kind: "action",
          tenantId: run.tenantId,
          agentId: run.agentId,
          runId: run.id,
          digest: run.digest,
          destination: run.destination,
          contract: contract ?? "none",
          payload: {
            run: runName(run.tenantId, run.id),
            operation: run.operation,
            version: run.version,
            digest: run.digest,
            packet: JSON.parse(run.packet),
          },
        }
      : undefined,
    faults: approve ? ctx.faults : undefined,
  });
  if (!won) return "lost" as const;
  ctx.metrics?.approvalResolved(decision.result, waitedSeconds(run, now));
  if (approve) ctx.faults?.reach("after-approve-commit");
  ctx.events.emit("run.changed", run.id);
  if (approve) ctx.events.emit("outbox.planned");
  return { result: decision.result };
}

/** The contract is read from config when the action is planned and then travels with the outbox row. */
async function contractOf(ctx: HandlerContext, run: RunRecord): Promise<string | undefined> {
  const agent = await findAgentById(ctx.store.db, run.agentId);
  return agent ? destinationContract(agent, run.destination) : undefined;
}
