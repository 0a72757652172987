import crypto from "node:crypto";
import type { EscalationKind, EscalationPolicy, Step } from "../../policy/escalation";
import { stateAfterPing } from "../../policy/escalation";
import { escalationId } from "../../policy/ids";
import type { Db } from "../client";

const isUniqueViolation = (error: unknown) => (error as { code?: string }).code === "P2002";

export interface NewEscalation {
  itemKey: string;
  tenantId: string;
  agentId: string;
  kind: EscalationKind;
  subject: string;
  itemVersion: number;
  since: Date;
  policy: EscalationPolicy;
}

/**
 * Starts an item's escalation with its policy snapshot, unless one is active for it already: the item row's
 * `activeId` is set only where it is empty (a conditional write, so of two monitors one starts it).
 * Returns the new id, or null when another escalation holds the item.
 */
export async function startEscalation(db: Db, item: NewEscalation): Promise<string | null> {
  await db.escalationItem.create({ data: { key: item.itemKey } }).catch((error) => {
    if (!isUniqueViolation(error)) throw error;
  });
  const id = escalationId(crypto.randomBytes(12).toString("base64url"));
  const targets = [...new Set(item.policy.levels.flatMap((l) => l.notify))];
  return db.$transaction(async (tx) => {
    const taken = await tx.escalationItem.updateMany({ where: { key: item.itemKey, activeId: null }, data: { activeId: id } });
    if (taken.count !== 1) return null;
    const { policy, ...fields } = item;
    await tx.escalation.create({
      data: { id, ...fields, policy: JSON.stringify(policy), targets: JSON.stringify(targets) },
    });
    return id;
  });
}

export type StepOutcome = "sent" | "stale_token" | "duplicate" | "resolved";

/**
 * Writes one ledger row BEFORE its ping goes out. The item row is written first (so on PostgreSQL it is
 * locked, and a resolve or another monitor's step waits for this transaction): a token that is no longer
 * the item's active one is `stale_token`; a row already in the ledger is `duplicate`. Only `sent` may ping.
 * A crash after this commit and before the send loses that one ping (at most once, never twice).
 */
export async function recordStep(
  db: Db,
  escalation: { id: string; itemKey: string },
  step: Step,
  notified: readonly string[],
  now: Date,
): Promise<StepOutcome> {
  return db.$transaction(async (tx) => {
    const fenced = await tx.escalationItem.updateMany({
      where: { key: escalation.itemKey, activeId: escalation.id },
      data: { activeId: escalation.id },
    });
    if (fenced.count !== 1) return "stale_token";
    const current = await tx.escalation.findUnique({ where: { id: escalation.id } });
    if (!current || current.state === "resolved") return "resolved";
    const key = { escalationId: escalation.id, level: step.level, repeat: step.repeat };
    if (await tx.escalationStep.findUnique({ where: { escalationId_level_repeat: key } })) return "duplicate";
    await tx.escalationStep.create({
      data: { ...key, dueAt: step.dueAt, sentAt: now, notified: JSON.stringify(notified) },
    });
    await tx.escalation.update({
      where: { id: escalation.id },
      data: {
        level: Math.max(current.level, step.level),
        lastSentAt: now,
        state: stateAfterPing(Math.max(current.level, step.level), current.ackLevel),
      },
    });
    return "sent";
  });
}

/**
 * Resolves an escalation and clears its item's token in one transaction. Only the first caller gets true
 * (and edits the cards); a later or concurrent one finds the token gone.
 */
export async function resolveEscalation(
  db: Db,
  escalation: { id: string; itemKey: string },
  resolution: string,
  now: Date,
): Promise<boolean> {
  return db.$transaction(async (tx) => {
    const cleared = await tx.escalationItem.updateMany({
      where: { key: escalation.itemKey, activeId: escalation.id },
      data: { activeId: null },
    });
    if (cleared.count !== 1) return false;
    await tx.escalation.update({
      where: { id: escalation.id },
      data: { state: "resolved", resolvedAt: now, resolution },
    });
    return true;
  });
}

export type AckOutcome = "acknowledged" | "already" | "resolved" | "not_found";

/** Acknowledges at the current level: its repeats stop; a later level still pings (and reopens it). */
export async function acknowledgeEscalation(db: Db, id: string, userId: string, now: Date): Promise<AckOutcome> {
  const row = await db.escalation.findUnique({ where: { id } });
  if (!row) return "not_found";
  if (row.state === "resolved") return "resolved";
  if (row.ackLevel !== null && row.ackLevel >= row.level) return "already";
  const written = await db.escalation.updateMany({
    where: { id, level: row.level, state: { in: ["open", "acknowledged"] } },
    data: { state: "acknowledged", ackLevel: row.level, acknowledgedBy: userId, acknowledgedAt: now },
  });
  return written.count === 1 ? "acknowledged" : acknowledgeEscalation(db, id, userId, now);
}
