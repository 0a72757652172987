import { coalescedKey } from "../../policy/ids";
import { type MisfirePolicy, planMisfire, type ReleasedDelivery } from "../../policy/misfire";
import { asDate, asDateOrNull, count, type Dialect, rows, type Step, sqlText } from "../connection/sql";
import { controlsStep, gateOf, gateScopes } from "../control/records";
import { insertOutboxRow } from "../outbox/insert";

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
 * Triggers with HELD rows in the release's scope: one agent, or every agent of the tenant. The tenant is
 * named in both, so a release never reaches another tenant's rows whatever its agent says.
 */
const heldTriggers = sqlText(
  (d) => `SELECT DISTINCT "triggerId", "agentId", "tenantId" FROM "Occurrence"
  WHERE "tenantId" = ? AND (CAST(? AS TEXT) IS NULL OR "agentId" = ?) AND "state" = 'HELD' AND "agentId" NOT IN ${d.list}
  ORDER BY "triggerId" LIMIT CAST(? AS INTEGER)`,
);
const MARK = sqlText(
  (d) => `UPDATE "Occurrence" SET "state" = ?, "releaseId" = ?, "outboxId" = ?, "updatedAt" = ${d.time}
  WHERE "id" IN ${d.list} AND "state" = 'HELD'`,
);
/** Marks rows of one outcome in one statement (one round trip, however many rows): how many were still HELD. */
function* mark(
  d: Dialect,
  state: "RELEASED" | "SKIPPED",
  releaseId: string,
  outboxId: string | null,
  ids: readonly string[],
  now: Date,
): Step<number> {
  return ids.length === 0 ? 0 : yield* count(MARK(d), state, releaseId, outboxId, now, ids);
}

/** How many later coalesced deliveries one release may plan for one trigger before something is wrong. */
const MAX_VISITS = 10_000;

/**
 * One step of the durable release loop (design.md section 10), the same rule on every database: up to
 * `triggersPerStep` triggers of the release's scope; per trigger its HELD rows, the misfire policy, the
 * deliveries planned and the rows marked RELEASED or SKIPPED, in one transaction. Each row's own agent and
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
  const next = yield* rows<{ triggerId: string; agentId: string; tenantId: string }>(
    heldTriggers(d),
    release.tenantId,
    release.agentId,
    release.agentId,
    [...gated],
    triggersPerStep,
  );
  if (next.length === 0) return { kind: "done" };
  const controls = yield* controlsStep(d, gateScopes(next));
  const shut = new Set(next.filter((n) => gateOf(controls, n.agentId, n.tenantId).held).map((n) => n.agentId));
  const step = { kind: "batch" as const, released: 0, skipped: 0, planned: 0, gated: [...shut] };
  for (const { triggerId, agentId } of next) {
    if (shut.has(agentId)) continue;
    const held = (yield* rows<{ id: string; dueAt: unknown }>(
      `SELECT "id", "dueAt" FROM "Occurrence" WHERE "triggerId" = ? AND "state" = 'HELD'`,
      triggerId,
    )).map((o) => ({ id: o.id, dueAt: asDate(o.dueAt) }));
    const [trigger] = yield* rows<TriggerRow>(
      `SELECT "id", "tenantId", "agentId", "key", "payload", "destination", "contract", "misfire" FROM "Trigger" WHERE "id" = ?`,
      triggerId,
    );
    let marked = 0;
    let skipped = held.map((o) => o.id);
    if (trigger) {
      const policy = trigger.misfire as MisfirePolicy;
      const plan = planMisfire(policy, held, {
        agent: trigger.agentId,
        trigger: trigger.key,
        releaseId,
        payload: JSON.parse(trigger.payload) as unknown,
        heldSince: asDateOrNull(release.heldSince),
        releasedAt: asDate(release.createdAt),
      });
      skipped = plan.skipped;
      for (const planned of plan.deliveries) {
        let delivery = planned;
        // A coalesced key this release planned already (an earlier step) is never reused: the next visit.
        for (let visit = 2; (yield* planOne(d, trigger, delivery, now)) === 0 && policy === "coalesce"; visit++) {
          if (visit > MAX_VISITS) throw new Error(`release ${releaseId}: too many deliveries of ${triggerId}`);
          delivery = { ...delivery, key: coalescedKey(trigger.agentId, trigger.key, releaseId, visit) };
        }
        marked += yield* mark(d, "RELEASED", releaseId, delivery.key, delivery.occurrenceIds, now);
      }
      step.planned += plan.deliveries.length;
    }
    marked += yield* mark(d, "SKIPPED", releaseId, null, skipped, now);
    // Rows taken by someone else meanwhile: roll the whole step back rather than plan them twice.
    if (marked !== held.length) throw new ReleaseRaceError(triggerId);
    step.released += held.length - skipped.length;
    step.skipped += skipped.length;
  }
  yield* count(
    `UPDATE "Release" SET "released" = "released" + ?, "skipped" = "skipped" + ? WHERE "id" = ?`,
    step.released,
    step.skipped,
    releaseId,
  );
  return step;
}

function* planOne(d: Dialect, trigger: TriggerRow, delivery: ReleasedDelivery, at: Date): Step<number> {
  const { tenantId, agentId, destination, contract } = trigger;
  const row = { id: delivery.key, kind: "trigger" as const, tenantId, agentId, destination, contract };
  return yield* insertOutboxRow(d, { ...row, payload: JSON.stringify(delivery.payload) }, at);
}
