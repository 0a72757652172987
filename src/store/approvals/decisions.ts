import type { Faults } from "../../policy/faults";
import type { Db, Store } from "../connection/client";
import { isUniqueViolation } from "../connection/prisma-errors";
import { planDelivery } from "../outbox/plan";
import type { PlannedDelivery } from "../outbox/types";

export interface StoredDecision {
  eventId: string;
  fingerprint: string;
  actorId: string | null;
  action: string;
  version: number;
  digest: string;
  result: string;
  at: Date;
}

type EventRow = NonNullable<Awaited<ReturnType<Db["decisionEvent"]["findUnique"]>>>;
const toStored = ({ runId: _run, tenantId: _t, agentId: _a, createdAt, ...row }: EventRow): StoredDecision => ({
  ...row,
  at: createdAt,
});

export async function findDecisionEvent(db: Db, runId: string, eventId: string): Promise<StoredDecision | null> {
  const row = await db.decisionEvent.findUnique({ where: { runId_eventId: { runId, eventId } } });
  return row ? toStored(row) : null;
}

/** The decision that moved the run out of `waiting`, if any (only winning decisions are recorded). */
export async function findDeciding(db: Db, runId: string): Promise<StoredDecision | null> {
  const row = await db.decisionEvent.findFirst({ where: { runId }, orderBy: { createdAt: "desc" } });
  return row ? toStored(row) : null;
}

export interface DecisionCommit {
  runId: string;
  /** The run's tenant and agent, recorded on the event for the audit list. */
  tenantId: string;
  agentId: string;
  fromVersion: number;
  next: { state: string; version: number };
  event: Omit<StoredDecision, "at">;
  at: Date;
  /** Approve plans exactly one outbox row in the same transaction; deny and expire plan none. */
  outbox?: PlannedDelivery;
  /** Test-only: `before-approve-commit` is reached inside the transaction just before it commits. */
  faults?: Faults;
}

class LostRace extends Error {}

/**
 * Writes a decision in one transaction: the run moves on with a conditional update on (id, version,
 * waiting), the event is recorded and the outbox row planned. Returns false when another decision won
 * the update (or recorded the same event id first); then nothing of this one is written.
 */
export async function commitDecision(store: Store, commit: DecisionCommit): Promise<boolean> {
  try {
    await store.db.$transaction(
      async (tx) => {
        const moved = await tx.run.updateMany({
          where: { id: commit.runId, version: commit.fromVersion, state: "waiting" },
          data: { ...commit.next, decidedBy: commit.event.actorId, decidedAt: commit.at },
        });
        if (moved.count !== 1) throw new LostRace();
        await tx.decisionEvent.create({
          data: {
            runId: commit.runId,
            tenantId: commit.tenantId,
            agentId: commit.agentId,
            ...commit.event,
            createdAt: commit.at,
          },
        });
        if (commit.outbox) await planDelivery(store, commit.outbox, commit.at, tx);
        commit.faults?.reach("before-approve-commit");
      },
      { maxWait: 30_000, timeout: 30_000 },
    );
    return true;
  } catch (error) {
    if (error instanceof LostRace || isUniqueViolation(error)) return false;
    throw error;
  }
}
