import type { ApprovalOutcome } from "../../../policy/metrics-sink";
import { commitDecision, type DecisionCommit } from "../../../store/approvals/decisions";
import type { RunRecord } from "../../../store/approvals/runs";
import type { HandlerContext } from "../context";
import { waitedSeconds } from "./run-ids";

/** What a decision writes beyond the run it moves: the next state, the event, and an approve's outbox row. */
export type RunSettlement = Pick<DecisionCommit, "next" | "at" | "event" | "outbox" | "faults">;

/**
 * The one way a run leaves `waiting` (a person's decision or the scheduler's expiry): the conditional commit,
 * then the wait it ended is counted. False when another decision won; then nothing was written.
 */
export async function commitRun(
  ctx: HandlerContext,
  run: RunRecord,
  outcome: ApprovalOutcome,
  settlement: RunSettlement,
): Promise<boolean> {
  const won = await commitDecision(ctx.store, {
    runId: run.id,
    tenantId: run.tenantId,
    agentId: run.agentId,
    fromVersion: run.version,
    ...settlement,
  });
  if (won) ctx.metrics?.approvalResolved(outcome, waitedSeconds(run, settlement.at));
  return won;
}
