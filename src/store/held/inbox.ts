import { applyStateDelta, InvalidTransition, type StateDelta } from "../approvals/runs-checkpoint";
import type { Db } from "../connection/client";
import { isUniqueViolation } from "../connection/prisma-errors";

export interface InboundEvent {
  agent: { id: string; tenantId: string };
  checkpoints: readonly string[];
  eventId: string;
  type: string;
  payload: unknown;
  stateDelta?: StateDelta;
  fingerprint: string;
  /** The gate's answer: a held event waits for the release; otherwise it joins the agent's ordered queue. */
  held: boolean;
  now: Date;
}

export interface EventReceipt {
  eventId: string;
  seq: number;
  state: "held" | "accepted";
  run?: { id: string; checkpoint: string };
}

export type ReceiveResult =
  | { kind: "accepted"; receipt: EventReceipt }
  | { kind: "duplicate"; receipt: EventReceipt }
  | { kind: "conflict" }
  | { kind: "invalid_transition"; why: string };

/**
 * Stores an awaited event once. The same id with the same fingerprint returns the recorded receipt; the
 * same id with a different body is a conflict. A state delta is applied in the same transaction as the row,
 * and a refused delta stores nothing.
 */
export async function receiveEvent(db: Db, event: InboundEvent): Promise<ReceiveResult> {
  const prior = await findPrior(db, event);
  if (prior) return prior;
  try {
    return await db.$transaction(async (tx) => {
      let run: EventReceipt["run"];
      if (event.stateDelta) {
        const applied = await applyStateDelta(tx, event.agent, event.checkpoints, event.stateDelta, event.now);
        if (!applied.ok) throw new InvalidTransition(applied.why);
        run = { id: applied.runId, checkpoint: applied.checkpoint };
      }
      const row = await tx.inboxEvent.create({
        data: {
          tenantId: event.agent.tenantId,
          agentId: event.agent.id,
          eventId: event.eventId,
          fingerprint: event.fingerprint,
          type: event.type,
          payload: JSON.stringify(event.payload ?? null),
          state: event.held ? "HELD" : "PENDING",
          receivedAt: event.now,
        },
      });
      const receipt: EventReceipt = {
        eventId: event.eventId,
        seq: row.seq,
        state: event.held ? "held" : "accepted",
        ...(run ? { run } : {}),
      };
      await tx.inboxEvent.update({ where: { seq: row.seq }, data: { result: JSON.stringify(receipt) } });
      return { kind: "accepted" as const, receipt };
    });
  } catch (error) {
    if (error instanceof InvalidTransition) return { kind: "invalid_transition", why: error.message };
    // The same event arriving twice at once: the second insert loses and reads the first one's receipt.
    if (isUniqueViolation(error)) {
      const raced = await findPrior(db, event);
      if (raced) return raced;
    }
    throw error;
  }
}

async function findPrior(db: Db, event: InboundEvent): Promise<ReceiveResult | null> {
  const prior = await db.inboxEvent.findUnique({
    where: { agentId_eventId: { agentId: event.agent.id, eventId: event.eventId } },
  });
  if (!prior) return null;
  if (prior.fingerprint !== event.fingerprint) return { kind: "conflict" };
  return { kind: "duplicate", receipt: JSON.parse(prior.result ?? "{}") as EventReceipt };
}
