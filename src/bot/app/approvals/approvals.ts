import { runName } from "../../../policy/ids";
import { listRunsAwaitingReviewer, type WaitingRun } from "../../../store/approvals/runs";
import type { KnownUser } from "../../../store/directory/directory";
import type { HandlerContext } from "../context";

/** Runs waiting for this user's decision, oldest first. */
export async function pendingApprovals(ctx: HandlerContext, user: KnownUser): Promise<WaitingRun[]> {
  const runs = await listRunsAwaitingReviewer(ctx.store.db, user.tenantId, user.id);
  return runs.map((run) => ({ ...run, id: runName(user.tenantId, run.id) }));
}
