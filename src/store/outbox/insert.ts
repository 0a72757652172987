import { count, type Dialect, type Step, sqlText } from "../connection/sql";
import type { PlannedDelivery } from "./types";

/**
 * A new outbox row: a planned delivery with its payload already JSON text. The rest takes the schema's
 * defaults (PLANNED, unleased).
 */
export type NewOutboxRow = Omit<PlannedDelivery, "payload"> & { payload: string };

/** Planned already leased and DISPATCHED as a first attempt (a tick batch's delivery alone in its lane). */
export interface DispatchedAtOnce {
  token: string;
  expiresAt: Date;
}

const insertText = sqlText(
  (d) => `INSERT INTO "OutboxItem" ("id", "kind", "tenantId", "agentId", "runId", "digest",
    "destination", "contract", "payload", "state", "attempts", "firstDispatchedAt", "lastAttemptAt", "leaseToken",
    "leaseAttemptId", "leaseExpiresAt", "nextAttemptAt", "createdAt", "updatedAt")
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ${d.time}, ${d.time}, ?, ?, ${d.time}, ${d.time}, ${d.time}, ${d.time})
  ON CONFLICT ("id") DO NOTHING`,
);

/**
 * The one way an outbox row is inserted, by every producer (ticks, releases, events, approvals): insert-if-
 * absent on its key, so a retried producer never plans an effect twice. Returns 1 when this call wrote it.
 */
export function* insertOutboxRow(d: Dialect, row: NewOutboxRow, at: Date, lease?: DispatchedAtOnce): Step<number> {
  const text = insertText(d);
  return yield* count(
    text,
    row.id,
    row.kind,
    row.tenantId,
    row.agentId,
    row.runId ?? null,
    row.digest ?? null,
    row.destination,
    row.contract,
    row.payload,
    lease ? "DISPATCHED" : "PLANNED",
    lease ? 1 : 0,
    lease ? at : null,
    lease ? at : null,
    lease?.token ?? null,
    lease?.token ?? null,
    lease?.expiresAt ?? null,
    at,
    at,
    at,
  );
}
