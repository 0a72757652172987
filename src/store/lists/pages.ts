import type { Db } from "../connection/client";
import { type StoredTrigger, toStoredTrigger } from "../held/triggers";
import { type OutboxItem, type OutboxState, outboxItemOf } from "../outbox/types";

/**
 * Keyset pages of the API's lists: each page reads `limit + 1` rows after the previous page's last sort key,
 * so a page costs the same however deep it is, and rows added meanwhile never shift a page.
 */
export interface Page<T, K> {
  items: T[];
  /** The last item's sort key when more follow; absent on the last page. */
  next?: K;
}

export function paged<T, K>(rows: T[], limit: number, keyOf: (row: T) => K): Page<T, K> {
  const items = rows.slice(0, limit);
  return rows.length > limit ? { items, next: keyOf(items[items.length - 1]!) } : { items };
}

/** A page in ascending order of a unique text column, after the previous page's last value of it. */
export interface TextPage {
  limit: number;
  after?: string;
}

/** The `where` part, `orderBy` and `take` of a TextPage over `column`. */
export function ascendingBy<C extends string>(column: C, page: TextPage) {
  const after = page.after === undefined ? {} : { [column]: { gt: page.after } };
  return {
    after: after as Partial<Record<C, { gt: string }>>,
    orderBy: { [column]: "asc" } as Record<C, "asc">,
    take: page.limit + 1,
  };
}

/** An agent's triggers by key. */
export async function triggerPage(db: Db, agentId: string, page: TextPage): Promise<Page<StoredTrigger, string>> {
  const { after, orderBy, take } = ascendingBy("key", page);
  const rows = await db.trigger.findMany({ where: { agentId, ...after }, orderBy, take });
  return paged(rows.map(toStoredTrigger), page.limit, (t) => t.key);
}

export interface OutboxKey {
  createdAt: Date;
  id: string;
}

/** A tenant's outbox items, newest first (ties by key), optionally of one state or agent. */
export async function outboxPage(
  db: Db,
  tenantId: string,
  filter: { state?: OutboxState; agentId?: string; limit: number; after?: OutboxKey },
): Promise<Page<OutboxItem, OutboxKey>> {
  const after = filter.after;
  const rows = await db.outboxItem.findMany({
    where: {
      tenantId,
      ...(filter.state ? { state: filter.state } : {}),
      ...(filter.agentId ? { agentId: filter.agentId } : {}),
      ...(after
        ? { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { gt: after.id } }] }
        : {}),
    },
    orderBy: [{ createdAt: "desc" }, { id: "asc" }],
    take: filter.limit + 1,
  });
  return paged(rows.map(outboxItemOf), filter.limit, (item) => ({ createdAt: item.createdAt, id: item.id }));
}
