import { agentScope } from "../../policy/ids";
import type { Db } from "../connection/client";

export type TakeOverOutcome = "assigned" | "already_reviewer" | "not_waiting";

/**
 * Makes the user an assigned reviewer of the run's current version, if it still waits at that version,
 * and audits it (action "takeover" in the agent's control audit) in the same transaction.
 */
export async function assignTakeOver(
  db: Db,
  take: { runId: string; version: number; agentId: string; tenantId: string; userId: string; escalationId: string },
): Promise<TakeOverOutcome> {
  return db.$transaction(async (tx) => {
    const run = await tx.run.findUnique({ where: { id: take.runId } });
    if (run?.state !== "waiting" || run.version !== take.version) return "not_waiting";
    const reviewers = JSON.parse(run.reviewers) as string[];
    if (reviewers.includes(take.userId)) return "already_reviewer";
    const written = await tx.run.updateMany({
      where: { id: take.runId, version: take.version, state: "waiting", reviewers: run.reviewers },
      data: { reviewers: JSON.stringify([...reviewers, take.userId]) },
    });
    if (written.count !== 1) return "not_waiting";
    await tx.controlAudit.create({
      data: {
        scope: agentScope(take.agentId),
        tenantId: take.tenantId,
        agentId: take.agentId,
        action: "takeover",
        actorId: take.userId,
        outcome: "assigned",
        reason: `run ${take.runId} version ${take.version} (escalation ${take.escalationId})`,
      },
    });
    return "assigned";
  });
}
