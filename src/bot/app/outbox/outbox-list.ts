import { seesDeliveryDetail, standingToward } from "../../../policy/access";
import { runName } from "../../../policy/ids";
import type { KnownUser } from "../../../store/directory/directory";
import { type OutboxKey, outboxPage, type Page } from "../../../store/lists/pages";
import type { OutboxItem } from "../../../store/outbox/types";
import { type DeliveryView, deliveryView } from "../approvals/run-view";
import { tenantStandingOf } from "../auth/standing";
import type { HandlerContext } from "../context";

export interface OutboxListItem extends DeliveryView {
  kind: OutboxItem["kind"];
  /** The run as the API names it; null for scheduled or inbound work. */
  runId: string | null;
}

export interface OutboxListFilter {
  state?: OutboxItem["state"];
  agentId?: string;
  limit: number;
  after?: OutboxKey;
}

/**
 * The tenant's effects, newest first, each with the full last result for those who see delivery detail of
 * its agent and the class of failure for everyone else.
 */
export async function listOutbox(
  ctx: HandlerContext,
  user: KnownUser,
  filter: OutboxListFilter,
): Promise<Page<OutboxListItem, OutboxKey>> {
  const { db } = ctx.store;
  const page = await outboxPage(db, user.tenantId, filter);
  const standing = await tenantStandingOf(ctx.store, user);
  const items = page.items.map((item) => ({
    ...deliveryView(item, seesDeliveryDetail(standingToward(standing, item.agentId))),
    kind: item.kind,
    runId: item.runId && runName(item.tenantId, item.runId),
  }));
  return { items, next: page.next };
}
