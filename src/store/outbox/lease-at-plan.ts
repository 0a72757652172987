import crypto from "node:crypto";
import { laneOf } from "../../policy/ids";
import { ownedLeaseToken } from "../../policy/maintenance";
import { OUTBOX_UNFINISHED, sqlList } from "../../policy/states";
import { type Dialect, rows, type Step, sqlText } from "../connection/sql";
import { AGENT_INDEXED, agentOutbox } from "./agent-index";
import { type DispatchedAtOnce, insertOutboxRows, type NewOutboxRow } from "./insert";
import { type Claim, plannedItem } from "./types";

/**
 * Dispatch a fresh delivery as it is planned: leased and marked DISPATCHED in the transaction that read the
 * gate open, so the caller sends it at once, with no claim, gate read or mark of its own. The gate reading
 * and the mark are then one atomic step. Only a delivery whose lane (agent and destination) has nothing else
 * planned or in flight is taken this way; the rest wait for the delivery loop's claim, in order.
 *
 * This is the explicit intake argument a producer's step is given (the delivery loop says how much it may
 * take: `DeliveryLoop.planIntake`); without one, every row is inserted PLANNED for the claim.
 */
export interface PlanIntake {
  leaseMs: number;
  /** At most this many (the delivery loop's room): beyond it, deliveries wait in the outbox for the claim. */
  limit: number;
  /** The run that takes the leases (see ClaimOptions.owner). */
  owner?: string;
}

/** Whether this intake may lease anything: only then, and only with deliveries to lease, are the lanes locked. */
export const leasesAny = (intake: PlanIntake | undefined): intake is PlanIntake =>
  intake !== undefined && intake.limit > 0;

/**
 * Deciding which lanes are free must not race another process's claim (claim.ts) or another batch's lease:
 * taken before the free lanes are read, and before the gate is read locked (the order the claim keeps too).
 */
export function* lockLanes(d: Dialect): Step<void> {
  if (d.laneLock) yield* rows(d.laneLock);
}

/** Lanes of these agents with a delivery planned or in flight: a fresh one there waits its turn. */
const BUSY_LANES = sqlText(
  (d) => `SELECT DISTINCT "agentId", "destination" FROM ${agentOutbox(d)}
  WHERE "agentId" IN ${d.list} AND "state" IN ${sqlList(OUTBOX_UNFINISHED)} AND ${AGENT_INDEXED}`,
);

/** Planned rows of one step, some of them leased as they are inserted. */
export interface PlanLeases {
  /** Inserts the rows (insert-if-absent) in one statement; each row written leased adds a claim. */
  insert(d: Dialect, rows: NewOutboxRow[], now: Date): Step<void>;
  /** The rows written leased and DISPATCHED: the caller sends them. */
  readonly claims: Claim[];
}

/**
 * Chooses, among the step's planned rows, up to `intake.limit` that are alone in their lane (nothing there
 * in the outbox, no other row of the step), and leases those as they are inserted.
 */
export function* leaseAtPlan(
  d: Dialect,
  planned: NewOutboxRow[],
  now: Date,
  intake: PlanIntake | undefined,
): Step<PlanLeases> {
  const take = leasesAny(intake) ? yield* freeLanes(d, planned, intake.limit) : new Set<string>();
  const lease: DispatchedAtOnce | undefined = intake && {
    token: ownedLeaseToken(intake.owner ?? "", crypto.randomUUID()),
    expiresAt: new Date(now.getTime() + intake.leaseMs),
  };
  const claims: Claim[] = [];
  return {
    claims,
    *insert(dialect, planned, at) {
      const leasedOf = (row: NewOutboxRow) => (lease && take.has(row.id) ? lease : undefined);
      const written = yield* insertOutboxRows(
        dialect,
        planned.map((row) => ({ row, at, lease: leasedOf(row) })),
      );
      // The claim is built from what was written: reading the row back (RETURNING *) cost about 12 µs of
      // CPU per delivery on SQLite, a quarter of the whole tick (bench/held.ts).
      for (const row of planned) {
        const leased = leasedOf(row);
        if (leased && written.has(row.id)) claims.push(dispatchedClaim(row, at, leased));
      }
    },
  };
}

/** Up to `limit` planned rows that are alone in their lane: nothing there in the outbox, no other row of the batch. */
function* freeLanes(d: Dialect, planned: NewOutboxRow[], limit: number): Step<Set<string>> {
  const agents = [...new Set(planned.map((r) => r.agentId))];
  const busy = yield* rows<{ agentId: string; destination: string }>(BUSY_LANES(d), agents);
  // Rows per lane; a lane with work already in the outbox counts as full whatever the batch holds.
  const perLane = new Map(busy.map((b) => [laneOf(b.agentId, b.destination), Number.POSITIVE_INFINITY]));
  const laneOfRow = (r: NewOutboxRow) => laneOf(r.agentId, r.destination);
  for (const r of planned) perLane.set(laneOfRow(r), (perLane.get(laneOfRow(r)) ?? 0) + 1);
  const alone = planned.filter((r) => perLane.get(laneOfRow(r)) === 1);
  return new Set(alone.slice(0, limit).map((r) => r.id));
}

/**
 * A claim on a row just inserted leased and DISPATCHED: the item as claimed (see `Claim`), from the insert's
 * columns and the schema's defaults.
 */
const dispatchedClaim = (o: NewOutboxRow, now: Date, lease: DispatchedAtOnce): Claim => {
  // The lease fields are set in place: spreading them in would copy the whole item once more per delivery.
  const item = plannedItem(o, now);
  item.leaseToken = lease.token;
  item.leaseAttemptId = lease.token;
  item.leaseExpiresAt = lease.expiresAt;
  return { item, leaseToken: lease.token, attemptId: crypto.randomUUID() };
};
