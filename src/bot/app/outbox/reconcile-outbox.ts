import { manages } from "../../../policy/access";
import type { KnownUser } from "../../../store/directory/directory";
import { findAgentById, standingOf } from "../../../store/directory/directory";
import { findOutboxItem } from "../../../store/outbox/marks";
import { findReviewItems, type Resolution, type ReviewFilter, reconcileItem } from "../../../store/outbox/review";
import { type DeliveryView, deliveryView } from "../approvals/run-view";
import type { HandlerContext } from "../context";

export interface ReconcileCommand {
  user: KnownUser;
  key: string;
  resolution: Resolution;
  note: string;
}

export type ReconcileResult =
  | { kind: "reconciled"; item: DeliveryView }
  | { kind: "not_found" }
  | { kind: "forbidden" }
  | { kind: "not_needs_review" };

/** A person settles an effect whose outcome was unknown. Only the agent's principal or an admin may. */
export async function reconcileOutbox(ctx: HandlerContext, command: ReconcileCommand): Promise<ReconcileResult> {
  const { db } = ctx.store;
  const item = await findOutboxItem(db, command.key);
  if (!item || item.tenantId !== command.user.tenantId) return { kind: "not_found" };
  const agent = await findAgentById(db, item.agentId);
  if (!agent) return { kind: "not_found" };
  if (!manages(await standingOf(db, command.user, agent))) return { kind: "forbidden" };
  if (item.state !== "NEEDS_REVIEW") return { kind: "not_needs_review" };
  const done = await reconcileItem(db, { ...command, item, actorId: command.user.id, at: ctx.now() });
  if (!done) return { kind: "not_needs_review" };
  ctx.log.info({ key: item.id, actor: command.user.id, resolution: command.resolution }, "outbox item reconciled");
  if (command.resolution === "retry") ctx.events.emit("outbox.planned");
  if (item.runId) ctx.events.emit("run.changed", item.runId);
  return { kind: "reconciled", item: deliveryView((await findOutboxItem(db, item.id))!, true) }; // it manages the agent
}

export interface BulkReconcileCommand {
  user: KnownUser;
  filter: Omit<ReviewFilter, "limit">;
  resolution: Resolution;
  note: string;
  /** At most this many items per call (the rest stay for the next one). */
  limit: number;
}

export interface BulkReconcileResult {
  /** Items that matched the filter (at most `limit`). */
  matched: number;
  reconciled: string[];
  /** Matched but left as they were: `forbidden` (not this caller's agent) or `not_needs_review` (moved). */
  skipped: Array<{ key: string; reason: "forbidden" | "not_needs_review" | "not_found" }>;
}

/**
 * Settles every NEEDS_REVIEW item a filter matches, one at a time through `reconcileOutbox`, so each gets
 * the same role check and its own audit row as a single reconcile; what the caller may not settle is
 * skipped and named, never half-done.
 */
export async function reconcileMatching(
  ctx: HandlerContext,
  command: BulkReconcileCommand,
): Promise<BulkReconcileResult> {
  const items = await findReviewItems(ctx.store.db, command.user.tenantId, { ...command.filter, limit: command.limit });
  const result: BulkReconcileResult = { matched: items.length, reconciled: [], skipped: [] };
  for (const item of items) {
    const { user, resolution, note } = command;
    const one = await reconcileOutbox(ctx, { user, key: item.id, resolution, note });
    if (one.kind === "reconciled") result.reconciled.push(item.id);
    else result.skipped.push({ key: item.id, reason: one.kind });
  }
  ctx.log.info(
    {
      actor: command.user.id,
      resolution: command.resolution,
      matched: result.matched,
      reconciled: result.reconciled.length,
    },
    "outbox items reconciled in bulk",
  );
  return result;
}
