import type { Store, Tx } from "../connection/client";
import { insertOutboxRow } from "./insert";
import type { PlannedDelivery } from "./types";

/**
 * Plans one delivery (an approved action, an inbound event), inside the caller's Prisma transaction when
 * given, through the same insert-if-absent statement as every other producer.
 */
export async function planDelivery(store: Store, item: PlannedDelivery, at: Date, tx?: Tx): Promise<void> {
  const row = { ...item, payload: JSON.stringify(item.payload) };
  await (tx
    ? store.sql.within(tx, (d) => insertOutboxRow(d, row, at))
    : store.sql.write((d) => insertOutboxRow(d, row, at)));
}
