import type { OutboxState } from "../../policy/states";
import { asDate, asDateOrNull } from "../connection/sql";

export type OutboxKind = "trigger" | "event" | "action" | "message";
export type { OutboxState };

/** One outbound effect, keyed by the idempotency key sent on every attempt. */
export interface PlannedDelivery {
  id: string;
  kind: OutboxKind;
  tenantId: string;
  agentId: string;
  runId?: string | null;
  /** The approved packet's digest (actions only), shown when the item needs review. */
  digest?: string | null;
  destination: string;
  contract: string;
  payload: unknown;
}

export interface OutboxItem {
  id: string;
  kind: OutboxKind;
  tenantId: string;
  agentId: string;
  runId: string | null;
  digest: string | null;
  destination: string;
  contract: string;
  payload: string;
  state: OutboxState;
  attempts: number;
  leaseToken: string | null;
  leaseAttemptId: string | null;
  leaseExpiresAt: Date | null;
  firstDispatchedAt: Date | null;
  lastAttemptAt: Date | null;
  lastResult: string | null;
  nextAttemptAt: Date;
  observedAt: Date | null;
  createdAt: Date;
}

export interface Claim {
  /** The item as it was claimed, before this attempt's DISPATCHED mark (its `attempts` are the earlier ones). */
  item: OutboxItem;
  leaseToken: string;
  attemptId: string;
}

/** An OutboxItem row as Prisma or a raw statement of either database returns it. */
export type OutboxRow = Record<keyof OutboxItem, unknown>;

/** The one row mapper of the outbox. */
export const outboxItemOf = (row: OutboxRow): OutboxItem => ({
  id: row.id as string,
  kind: row.kind as OutboxKind,
  tenantId: row.tenantId as string,
  agentId: row.agentId as string,
  runId: (row.runId as string | null) ?? null,
  digest: (row.digest as string | null) ?? null,
  destination: row.destination as string,
  contract: row.contract as string,
  payload: row.payload as string,
  state: row.state as OutboxState,
  attempts: Number(row.attempts),
  leaseToken: (row.leaseToken as string | null) ?? null,
  leaseAttemptId: (row.leaseAttemptId as string | null) ?? null,
  leaseExpiresAt: asDateOrNull(row.leaseExpiresAt),
  firstDispatchedAt: asDateOrNull(row.firstDispatchedAt),
  lastAttemptAt: asDateOrNull(row.lastAttemptAt),
  lastResult: (row.lastResult as string | null) ?? null,
  nextAttemptAt: asDate(row.nextAttemptAt),
  observedAt: asDateOrNull(row.observedAt),
  createdAt: asDate(row.createdAt),
});

/**
 * An item as it is when planned: the given columns, and the schema's defaults for the rest (PLANNED, no
 * attempt, due now, unleased). For a row inserted just now, without reading it back.
 */
export const plannedItem = (
  row: Pick<OutboxItem, "id" | "tenantId" | "agentId" | "destination" | "contract" | "payload"> & { kind: string },
  at: Date,
): OutboxItem => ({
  id: row.id,
  kind: row.kind as OutboxKind,
  tenantId: row.tenantId,
  agentId: row.agentId,
  destination: row.destination,
  contract: row.contract,
  payload: row.payload,
  runId: null,
  digest: null,
  state: "PLANNED",
  attempts: 0,
  leaseToken: null,
  leaseAttemptId: null,
  leaseExpiresAt: null,
  firstDispatchedAt: null,
  lastAttemptAt: null,
  lastResult: null,
  nextAttemptAt: at,
  observedAt: null,
  createdAt: at,
});
