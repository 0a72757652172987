import crypto from "node:crypto";
import type { Step } from "../../policy/escalation";
import { stateAfterPing } from "../../policy/escalation";
import { escalationId } from "../../policy/ids";
import type { Db, Store } from "../connection/client";
import { count, rows, sqlText } from "../connection/sql";
import type { StoredEscalation } from "./records";

/** What an escalation starts with: its item and the policy snapshot. */
export type NewEscalation = Pick<
  StoredEscalation,
  "itemKey" | "tenantId" | "agentId" | "kind" | "subject" | "itemVersion" | "since" | "policy"
>;

const ITEM = sqlText(
  (d) =>
    `INSERT INTO "EscalationItem" ("key", "activeId", "updatedAt") VALUES (?, NULL, ${d.time}) ON CONFLICT ("key") DO NOTHING`,
);
const TAKE = sqlText(
  (d) => `UPDATE "EscalationItem" SET "activeId" = ?, "updatedAt" = ${d.time} WHERE "key" = ? AND "activeId" IS NULL`,
);
const CREATE = sqlText(
  (d) => `INSERT INTO "Escalation" ("id", "itemKey", "tenantId", "agentId", "kind", "subject", "itemVersion",
  "targets", "since", "policy", "state", "level", "createdAt") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ${d.time}, ?, 'open', 0, ${d.time})`,
);
/** Written first in a step's transaction: on PostgreSQL the item row is then locked until it commits. */
const FENCE = sqlText((d) => `UPDATE "EscalationItem" SET "updatedAt" = ${d.time} WHERE "key" = ? AND "activeId" = ?`);
const LEDGER = sqlText(
  (d) => `INSERT INTO "EscalationStep" ("escalationId", "level", "repeat", "dueAt", "sentAt", "notified")
  VALUES (?, ?, ?, ${d.time}, ${d.time}, ?) ON CONFLICT DO NOTHING`,
);
const SENT = sqlText(
  (d) => `UPDATE "Escalation" SET "level" = ?, "lastSentAt" = ${d.time}, "state" = ? WHERE "id" = ?`,
);
const CLEAR = sqlText(
  (d) => `UPDATE "EscalationItem" SET "activeId" = NULL, "updatedAt" = ${d.time} WHERE "key" = ? AND "activeId" = ?`,
);
const RESOLVED = sqlText(
  (d) => `UPDATE "Escalation" SET "state" = 'resolved', "resolvedAt" = ${d.time}, "resolution" = ? WHERE "id" = ?`,
);

/**
 * Starts an item's escalation with its policy snapshot, unless one is active for it already: the item row's
 * `activeId` (the fencing token) is set only where it is empty, so of two monitors one starts it. Returns
 * the new id, or null when another escalation holds the item.
 */
export function startEscalation(store: Store, item: NewEscalation, now: Date): Promise<string | null> {
  const id = escalationId(crypto.randomBytes(12).toString("base64url"));
  const targets = JSON.stringify([...new Set(item.policy.levels.flatMap((l) => l.notify))]);
  return store.sql.write(function* (d) {
    yield* count(ITEM(d), item.itemKey, now);
    if ((yield* count(TAKE(d), id, now, item.itemKey)) !== 1) return null;
    yield* count(
      CREATE(d),
      id,
      item.itemKey,
      item.tenantId,
      item.agentId,
      item.kind,
      item.subject,
      item.itemVersion,
      targets,
      item.since,
      JSON.stringify(item.policy),
      now,
    );
    return id;
  });
}

export type StepOutcome = "sent" | "stale_token" | "duplicate" | "resolved";

/**
 * Writes one ledger row BEFORE its ping goes out, in one transaction that starts with the fence: a token
 * that is no longer the item's active one is `stale_token`, a resolved escalation `resolved`, a row already
 * in the ledger (its unique key) `duplicate`. Only `sent` may ping. A crash after this commit and before
 * the send loses that one ping: at most once, never twice.
 */
export function recordStep(
  store: Store,
  escalation: { id: string; itemKey: string },
  step: Step,
  notified: readonly string[],
  now: Date,
): Promise<StepOutcome> {
  return store.sql.write(function* (d) {
    if ((yield* count(FENCE(d), now, escalation.itemKey, escalation.id)) !== 1) return "stale_token";
    const [current] = yield* rows<{ state: string; level: number; ackLevel: number | null }>(
      `SELECT "state", "level", "ackLevel" FROM "Escalation" WHERE "id" = ?`,
      escalation.id,
    );
    if (!current || current.state === "resolved") return "resolved";
    const written = yield* count(
      LEDGER(d),
      escalation.id,
      step.level,
      step.repeat,
      step.dueAt,
      now,
      JSON.stringify(notified),
    );
    if (written !== 1) return "duplicate";
    const level = Math.max(Number(current.level), step.level);
    const ackLevel = current.ackLevel === null ? null : Number(current.ackLevel);
    yield* count(SENT(d), level, now, stateAfterPing(level, ackLevel), escalation.id);
    return "sent";
  });
}

/**
 * Resolves an escalation and clears its item's token in one transaction. Only the first caller gets true
 * (and edits the cards); a later or concurrent one finds the token gone.
 */
export function resolveEscalation(
  store: Store,
  escalation: { id: string; itemKey: string },
  resolution: string,
  now: Date,
): Promise<boolean> {
  return store.sql.write(function* (d) {
    if ((yield* count(CLEAR(d), now, escalation.itemKey, escalation.id)) !== 1) return false;
    yield* count(RESOLVED(d), now, resolution, escalation.id);
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
