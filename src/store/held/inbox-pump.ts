import { eventDeliveryKey } from "../../policy/ids";
import { INBOX_PUMPED, INBOX_QUEUED, OUTBOX_SETTLED, type OutboxState } from "../../policy/states";
import type { Db, Store } from "../connection/client";
import { checkGate } from "../control/gate";
import { planDelivery } from "../outbox/plan";

/**
 * Hands an agent's next inbound event to the outbox, one at a time: event N+1 is planned only once event
 * N's delivery has settled. The delivery loop sends many items at once, so ordering cannot come from it;
 * it comes from never having two events of one agent in the outbox together. Returns true when an event
 * was planned. Safe to call any number of times from anywhere: every step is a conditional update.
 */
export async function pumpEvents(store: Store, agentId: string, now: Date): Promise<boolean> {
  const db = store.db;
  const inFlight = await db.inboxEvent.findFirst({ where: { agentId, state: "PLANNED" }, orderBy: { seq: "asc" } });
  if (inFlight) {
    const item = await db.outboxItem.findUnique({
      where: { id: eventDeliveryKey(agentId, inFlight.eventId) },
      select: { state: true },
    });
    if (item && !OUTBOX_SETTLED.includes(item.state as OutboxState)) return false;
    await db.inboxEvent.updateMany({ where: { seq: inFlight.seq, state: "PLANNED" }, data: { state: "DONE" } });
  }
  const next = await db.inboxEvent.findFirst({
    where: { agentId, state: { in: INBOX_QUEUED } },
    orderBy: { seq: "asc" },
  });
  if (!next) return false;
  if ((await checkGate(store, agentId, next.tenantId)).held) return false;
  const agent = await db.agent.findUnique({ where: { id: agentId }, select: { webhook: true } });
  return db.$transaction(async (tx) => {
    const taken = await tx.inboxEvent.updateMany({
      where: { seq: next.seq, state: next.state },
      data: { state: "PLANNED" },
    });
    if (taken.count !== 1) return false;
    await planDelivery(
      store,
      {
        id: eventDeliveryKey(agentId, next.eventId),
        kind: "event",
        tenantId: next.tenantId,
        agentId,
        // An agent without a webhook gets a delivery that fails visibly rather than a silent drop.
        destination: agent?.webhook ?? "http://invalid.invalid/no-webhook",
        contract: "none",
        payload: {
          eventId: next.eventId,
          type: next.type,
          payload: JSON.parse(next.payload) as unknown,
          seq: next.seq,
          receivedAt: next.receivedAt.toISOString(),
          deliveredAt: now.toISOString(),
        },
      },
      now,
      tx,
    );
    return true;
  });
}

/** Agents that have inbound events waiting or in the outbox (for the periodic sweep). */
export async function agentsWithEventWork(db: Db): Promise<string[]> {
  const rows = await db.inboxEvent.groupBy({
    by: ["agentId"],
    where: { state: { in: INBOX_PUMPED } },
  });
  return rows.map((r) => r.agentId);
}
