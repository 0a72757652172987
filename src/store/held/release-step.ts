import { coalescedKey } from "../../policy/ids";
import { type MisfirePolicy, planMisfire, type ReleasedDelivery } from "../../policy/misfire";
import { asDate, asDateOrNull, count, type Dialect, rows, rowsParam, type Step, sqlText } from "../connection/sql";
import { controlsStep, gateOf, gateScopes } from "../control/records";
import { insertOutboxRows, type NewOutboxRow } from "../outbox/insert";

export type StepOutcome =
  /** `gated`: agents whose own gate is still closed (paused themselves); their work waits for their resume. */
  { kind: "batch"; released: number; skipped: number; planned: number; gated: string[] } | { kind: "done" };

export class ReleaseRaceError extends Error {
  readonly code = "release_race";
}

interface ReleaseRow {
  id: string;
  tenantId: string;
  agentId: string | null;
  state: string;
  heldSince: unknown;
  createdAt: unknown;
}

interface TriggerRow {
  id: string;
  tenantId: string;
  agentId: string;
  key: string;
  payload: string;
  destination: string;
  contract: string;
  misfire: string;
}

/**
 * Triggers with HELD rows in the release's scope: one agent's, or every agent's of the tenant. Two texts rather
 * than one with `(? IS NULL OR "agentId" = ?)`: on PostgreSQL a prepared statement runs on a generic plan after
 * its fifth execution, and that plan cannot use the agent's index for the OR, so each step of an agent's release
 * read every HELD row of the tenant (47 ms at 170,000 against 0.2 ms; `npm run bench:load`, where late ticks open
 * a release per agent). The tenant is named in both, so a release never reaches another tenant's rows whatever
 * its agent says.
 */
const heldTriggersOfAgent = sqlText(
  (d) => `SELECT DISTINCT "triggerId", "agentId", "tenantId" FROM "Occurrence"
  WHERE "agentId" = ? AND "state" = 'HELD' AND "tenantId" = ? AND "agentId" NOT IN ${d.list}
  ORDER BY "triggerId" LIMIT CAST(? AS INTEGER)`,
);
const heldTriggersOfTenant = sqlText(
  (d) => `SELECT DISTINCT "triggerId", "agentId", "tenantId" FROM "Occurrence"
  WHERE "tenantId" = ? AND "state" = 'HELD' AND "agentId" NOT IN ${d.list}
  ORDER BY "triggerId" LIMIT CAST(? AS INTEGER)`,
);
/**
 * The step's marks, RELEASED or SKIPPED, in one statement however many rows (one round trip on PostgreSQL, not
 * one per delivery): rows of (id, state, outboxId). Only rows still HELD are marked; the caller compares the
 * count with what it read.
 */
const MARK = sqlText(
  (d) => `UPDATE "Occurrence" SET "state" = r."c1", "releaseId" = ?, "outboxId" = r."c2", "updatedAt" = ${d.time}
  FROM ${d.rowsOf(3)} WHERE "Occurrence"."id" = r."c0" AND "Occurrence"."state" = 'HELD'`,
);
/** The HELD rows of the step's triggers, all in one read. */
const HELD_ROWS = sqlText(
  (d) => `SELECT "id", "triggerId", "dueAt" FROM "Occurrence" WHERE "triggerId" IN ${d.list} AND "state" = 'HELD'`,
);
/** The step's triggers, in one read. */
const TRIGGERS = sqlText(
  (d) => `SELECT "id", "tenantId", "agentId", "key", "payload", "destination", "contract", "misfire" FROM "Trigger"
  WHERE "id" IN ${d.list}`,
);

/** How many later coalesced deliveries one release may plan for one trigger before something is wrong. */
const MAX_VISITS = 10_000;

/**
 * One step of the durable release loop (design.md section 10), the same rule on every database: up to
 * `triggersPerStep` triggers of the release's scope; per trigger its HELD rows, the misfire policy, the
 * deliveries planned and the rows marked RELEASED or SKIPPED, in one transaction. The held rows and the triggers
 * are read once for the whole step, its deliveries inserted in one statement and its marks written in one
 * (on PostgreSQL a step of 100 triggers of 10 rows was 2,000 round trips, one insert and one mark per
 * delivery, and is now six: bench/quick.ts). Each row's own agent and
 * tenant gate is read in that transaction. A coalesced delivery carries exactly the rows marked into it:
 * when a later step finds rows that arrived after the trigger's delivery was planned, they get the next key
 * (`coalescedKey`'s visit), never the planned one. Re-running after a crash, or running twice, finds
 * nothing left to do. `done` when no HELD row of the scope is left.
 */
export function* releaseStep(
  d: Dialect,
  releaseId: string,
  gated: readonly string[],
  triggersPerStep: number,
  now: Date,
): Step<StepOutcome> {
  const [release] = yield* rows<ReleaseRow>(
    `SELECT "id", "tenantId", "agentId", "state", "heldSince", "createdAt" FROM "Release" WHERE "id" = ?`,
    releaseId,
  );
  if (!release || release.state === "DONE") return { kind: "done" };
  type HeldTrigger = { triggerId: string; agentId: string; tenantId: string };
  const next = release.agentId
    ? yield* rows<HeldTrigger>(heldTriggersOfAgent(d), release.agentId, release.tenantId, [...gated], triggersPerStep)
    : yield* rows<HeldTrigger>(heldTriggersOfTenant(d), release.tenantId, [...gated], triggersPerStep);
  if (next.length === 0) return { kind: "done" };
  const controls = yield* controlsStep(d, gateScopes(next));
  const shut = new Set(next.filter((n) => gateOf(controls, n.agentId, n.tenantId).held).map((n) => n.agentId));
  const step = { kind: "batch" as const, released: 0, skipped: 0, planned: 0, gated: [...shut] };
  const open = next.filter((n) => !shut.has(n.agentId)).map((n) => n.triggerId);
  if (open.length === 0) return step;
  // One read of the held rows and one of the triggers for the whole step, not two per trigger.
  const heldOf = new Map<string, Array<{ id: string; dueAt: Date }>>();
  for (const o of yield* rows<{ id: string; triggerId: string; dueAt: unknown }>(HELD_ROWS(d), open)) {
    const held = heldOf.get(o.triggerId) ?? [];
    held.push({ id: o.id, dueAt: asDate(o.dueAt) });
    heldOf.set(o.triggerId, held);
  }
  const triggers = new Map((yield* rows<TriggerRow>(TRIGGERS(d), open)).map((t) => [t.id, t]));
  const marks: Mark[] = [];
  const pending: Planned[] = [];
  let heldCount = 0;
  for (const triggerId of open) {
    const held = heldOf.get(triggerId) ?? [];
    heldCount += held.length;
    const trigger = triggers.get(triggerId);
    let skipped = held.map((o) => o.id);
    if (trigger) {
      const plan = planMisfire(trigger.misfire as MisfirePolicy, held, {
        agent: trigger.agentId,
        trigger: trigger.key,
        releaseId,
        payload: JSON.parse(trigger.payload) as unknown,
        heldSince: asDateOrNull(release.heldSince),
        releasedAt: asDate(release.createdAt),
      });
      skipped = plan.skipped;
      for (const delivery of plan.deliveries) pending.push({ trigger, delivery, visit: 1 });
      step.planned += plan.deliveries.length;
    }
    for (const id of skipped) marks.push([id, "SKIPPED", null]);
    step.released += held.length - skipped.length;
    step.skipped += skipped.length;
  }
  yield* insertDeliveries(d, releaseId, pending, now, marks);
  const marked = marks.length === 0 ? 0 : yield* count(MARK(d), releaseId, now, rowsParam(marks));
  // Rows taken by someone else meanwhile: roll the whole step back rather than plan them twice.
  if (marked !== heldCount) throw new ReleaseRaceError(open.join(", "));
  yield* count(
    `UPDATE "Release" SET "released" = "released" + ?, "skipped" = "skipped" + ? WHERE "id" = ?`,
    step.released,
    step.skipped,
    releaseId,
  );
  return step;
}

type Mark = [id: string, state: "RELEASED" | "SKIPPED", outboxId: string | null];

/**
 * Every delivery of the step in one insert, and the RELEASED marks of the rows each carries. A coalesced key
 * this release planned already (an earlier step) is never reused: that delivery goes again with the next
 * visit's key, until it is written.
 */
function* insertDeliveries(d: Dialect, releaseId: string, planned: Planned[], now: Date, marks: Mark[]): Step<void> {
  let pending = planned;
  while (pending.length) {
    const written = yield* insertOutboxRows(
      d,
      pending.map(({ trigger, delivery }) => ({ row: outboxRowOf(trigger, delivery), at: now })),
    );
    const again: Planned[] = [];
    for (const { trigger, delivery, visit } of pending) {
      if (written.has(delivery.key) || trigger.misfire !== "coalesce") {
        for (const id of delivery.occurrenceIds) marks.push([id, "RELEASED", delivery.key]);
        continue;
      }
      if (visit + 1 > MAX_VISITS) throw new Error(`release ${releaseId}: too many deliveries of ${trigger.id}`);
      const key = coalescedKey(trigger.agentId, trigger.key, releaseId, visit + 1);
      again.push({ trigger, visit: visit + 1, delivery: { ...delivery, key } });
    }
    pending = again;
  }
}

/** A delivery of the step, and which visit of its trigger's coalesced key it is. */
interface Planned {
  trigger: TriggerRow;
  delivery: ReleasedDelivery;
  visit: number;
}

const outboxRowOf = (trigger: TriggerRow, delivery: ReleasedDelivery): NewOutboxRow => ({
  id: delivery.key,
  kind: "trigger",
  tenantId: trigger.tenantId,
  agentId: trigger.agentId,
  destination: trigger.destination,
  contract: trigger.contract,
  payload: JSON.stringify(delivery.payload),
});
