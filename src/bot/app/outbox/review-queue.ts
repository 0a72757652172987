import { manages, seesDeliveryDetail } from "../../../policy/access";
import { runName } from "../../../policy/ids";
import { findDeciding } from "../../../store/approvals/decisions";
import { findAgentById, type KnownUser, standingOf, userName } from "../../../store/directory/directory";
import { findReviewItems } from "../../../store/outbox/review";
import type { OutboxItem } from "../../../store/outbox/types";
import { type RunAsRead, readRun } from "../approvals/read-run";
import { type DeliveryView, deliveryView } from "../approvals/run-view";
import type { HandlerContext } from "../context";

/** One NEEDS_REVIEW item with what a person needs to settle it. */
export interface ReviewQueueItem {
  item: OutboxItem;
  /** The agent's name (its id when it left the directory). */
  agent: string;
  /** Who approved the packet and when; null for scheduled or inbound work. `by` null: the scheduler. */
  approved: { by: string | null; at: Date } | null;
  /** The last result in full for those who see delivery detail, its class for everyone else. */
  delivery: DeliveryView;
  /** Whether this person may reconcile it (policy/access.ts `manages`). */
  canReconcile: boolean;
  /** The approved run as this person may read it: its packet only if they see packets (`readRun`). */
  run: RunAsRead | null;
}

/** The tenant's effects whose outcome is unknown, oldest first, as this person may see them. */
export async function reviewQueue(ctx: HandlerContext, user: KnownUser, limit = 100): Promise<ReviewQueueItem[]> {
  const items = await findReviewItems(ctx.store.db, user.tenantId, { limit });
  return Promise.all(items.map((item) => queueItem(ctx, user, item)));
}

async function queueItem(ctx: HandlerContext, user: KnownUser, item: OutboxItem): Promise<ReviewQueueItem> {
  const { db } = ctx.store;
  const agent = await findAgentById(db, item.agentId);
  const standing = agent ? await standingOf(db, user, agent) : null;
  const deciding = item.runId ? await findDeciding(db, item.runId) : null;
  const run = item.runId ? await readRun(ctx, { kind: "user", user }, runName(item.tenantId, item.runId)) : null;
  return {
    item,
    agent: agent?.name ?? item.agentId,
    approved: deciding ? { by: await userName(db, deciding.actorId), at: deciding.at } : null,
    delivery: deliveryView(item, standing !== null && seesDeliveryDetail(standing)),
    canReconcile: standing !== null && manages(standing),
    run,
  };
}
