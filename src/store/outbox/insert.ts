import { type Dialect, rows, rowsParam, rowTime, type Step, sqlText } from "../connection/sql";
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

export const OUTBOX_ROW_WIDTH = 15;
const WIDTH = OUTBOX_ROW_WIDTH;
/**
 * The one INSERT of outbox rows, from `source`: a derived table `r` of OUTBOX_ROW_WIDTH columns (`d.rowsOf`,
 * `d.oneRow`), possibly joined with a condition's rows (a decision's, in one statement).
 */
export const outboxInsertFrom = (
  d: Dialect,
  source: string,
) => `INSERT INTO "OutboxItem" ("id", "kind", "tenantId", "agentId", "runId", "digest",
    "destination", "contract", "payload", "state", "attempts", "firstDispatchedAt", "lastAttemptAt", "leaseToken",
    "leaseAttemptId", "leaseExpiresAt", "nextAttemptAt", "createdAt", "updatedAt")
  SELECT r."c0", r."c1", r."c2", r."c3", r."c4", r."c5", r."c6", r."c7", r."c8", r."c9", CAST(r."c10" AS INTEGER),
    ${d.timeOf('r."c11"')}, ${d.timeOf('r."c11"')}, r."c12", r."c12", ${d.timeOf('r."c13"')},
    ${d.timeOf('r."c14"')}, ${d.timeOf('r."c14"')}, ${d.timeOf('r."c14"')}
  FROM ${source} WHERE true
  ON CONFLICT ("id") DO NOTHING RETURNING "id"`;
const insertMany = sqlText((d) => outboxInsertFrom(d, d.rowsOf(WIDTH)));
const insertOne = sqlText((d) => outboxInsertFrom(d, d.oneRow(WIDTH)));

/** One row to insert, planned at `at`, leased and DISPATCHED at once when `lease` is given. */
export interface OutboxInsert {
  row: NewOutboxRow;
  at: Date;
  lease?: DispatchedAtOnce;
}

/**
 * The one way outbox rows are inserted, by every producer (ticks, releases, events, approvals): insert-if-
 * absent on their keys, so a retried producer never plans an effect twice, all rows in one statement. Returns
 * the ids this call wrote.
 */
export function* insertOutboxRows(d: Dialect, inserts: readonly OutboxInsert[]): Step<Set<string>> {
  if (inserts.length === 0) return new Set();
  const values = inserts.map(outboxRowValues);
  const [only] = values;
  const written =
    values.length === 1 && only
      ? yield* rows<{ id: string }>(insertOne(d), ...only)
      : yield* rows<{ id: string }>(insertMany(d), rowsParam(values));
  return new Set(written.map((w) => w.id));
}

/** An insert's values, in the columns of `outboxInsertFrom`'s source. */
export const outboxRowValues = ({ row, at, lease }: OutboxInsert): Array<string | number | null> => [
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
  rowTime(lease ? at : null),
  lease?.token ?? null,
  rowTime(lease?.expiresAt ?? null),
  rowTime(at),
];

/** One row (see `insertOutboxRows`): 1 when this call wrote it. */
export function* insertOutboxRow(d: Dialect, row: NewOutboxRow, at: Date, lease?: DispatchedAtOnce): Step<number> {
  return (yield* insertOutboxRows(d, [{ row, at, lease }])).size;
}
