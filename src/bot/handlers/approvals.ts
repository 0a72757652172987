import type { KnownUser } from "../../store/directory";
import { listRunsAwaitingReviewer, type WaitingRun } from "../../store/runs";
import type { HandlerContext } from "../context";

/** Runs waiting for this user's decision, oldest first. */
export async function pendingApprovals(ctx: HandlerContext, user: KnownUser): Promise<WaitingRun[]> {
  return listRunsAwaitingReviewer(ctx.store.db, user.tenantId, user.id);
}
