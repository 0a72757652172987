import { gateVerdict } from "../policy/gate";
import { type MisfirePolicy, planMisfire } from "../policy/misfire";
import { agentScope, tenantScope } from "./directory";
import { controlsIn } from "./outbox-sqlite";
import { type BatchOutcome, ReleaseRaceError } from "./releases";
import { type SqliteDirect, sqliteTime } from "./sqlite-direct";

/** Triggers with HELD rows in the release's scope (one agent, or a whole tenant). */
const heldTriggers = (scope: "agentId" | "tenantId") => `SELECT DISTINCT "triggerId", "agentId" FROM "Occurrence"
  WHERE "${scope}" = ? AND "state" = 'HELD' AND "agentId" NOT IN (SELECT value FROM json_each(?)) LIMIT ?`;
const INSERT_OUTBOX = `INSERT INTO "OutboxItem" ("id", "kind", "tenantId", "agentId", "destination", "contract", "payload", "nextAttemptAt", "createdAt", "updatedAt")
  VALUES (?, 'trigger', ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT ("id") DO NOTHING`;
const MARK = `UPDATE "Occurrence" SET "state" = ?, "releaseId" = ?, "outboxId" = ?, "updatedAt" = ? WHERE "id" = ? AND "state" = 'HELD'`;

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
 * A release step on SQLite: up to `triggersPerStep` triggers in one synchronous transaction through
 * prepared statements, by the same rules as releaseNextBatch (releases.ts): per trigger, its HELD rows,
 * the misfire policy, the deliveries planned and the rows marked RELEASED or SKIPPED. Agents whose own gate
 * is shut are reported and left for their own resume. `null` when no HELD row is left.
 */
export async function releaseStepSqlite(
  sqlite: SqliteDirect,
  releaseId: string,
  gated: Set<string>,
  triggersPerStep: number,
): Promise<BatchOutcome | null> {
  return sqlite.atomically((sql) => {
    const release = sql(`SELECT * FROM "Release" WHERE "id" = ?`).get(releaseId) as
      | {
          id: string;
          tenantId: string;
          agentId: string | null;
          state: string;
          heldSince: string | null;
          createdAt: string;
        }
      | undefined;
    if (!release || release.state === "DONE") return { kind: "finished", eventAgents: [] };
    const next = sql(heldTriggers(release.agentId ? "agentId" : "tenantId")).all(
      release.agentId ?? release.tenantId,
      JSON.stringify([...gated]),
      triggersPerStep,
    ) as Array<{ triggerId: string; agentId: string }>;
    if (next.length === 0) return null;
    const scopes = [...new Set(next.map((n) => agentScope(n.agentId))), tenantScope(release.tenantId)];
    const controls = controlsIn(sql, scopes);
    const tenantControl = controls.get(tenantScope(release.tenantId));
    const shut = new Set(
      next.map((n) => n.agentId).filter((a) => gateVerdict(controls.get(agentScope(a)), tenantControl).held),
    );
    const at = sqliteTime(new Date());
    const step = { kind: "batch" as const, released: 0, skipped: 0, planned: 0, gated: [...shut] };
    for (const { triggerId, agentId } of next) {
      if (shut.has(agentId)) continue;
      const held = (
        sql(`SELECT "id", "dueAt" FROM "Occurrence" WHERE "triggerId" = ? AND "state" = 'HELD'`).all(
          triggerId,
        ) as Array<{
          id: string;
          dueAt: string;
        }>
      ).map((o) => ({ id: o.id, dueAt: new Date(o.dueAt) }));
      const trigger = sql(`SELECT * FROM "Trigger" WHERE "id" = ?`).get(triggerId) as TriggerRow | undefined;
      const plan = trigger
        ? planMisfire(trigger.misfire as MisfirePolicy, held, {
            agent: trigger.agentId,
            trigger: trigger.key,
            releaseId,
            payload: JSON.parse(trigger.payload) as unknown,
            heldSince: release.heldSince ? new Date(release.heldSince) : null,
            releasedAt: new Date(release.createdAt),
          })
        : { deliveries: [], skipped: held.map((o) => o.id) };
      let marked = 0;
      for (const d of plan.deliveries) {
        const t = trigger!;
        const payload = JSON.stringify(d.payload);
        sql(INSERT_OUTBOX).run(d.key, t.tenantId, t.agentId, t.destination, t.contract, payload, at, at, at);
        for (const id of d.occurrenceIds) marked += sql(MARK).run("RELEASED", releaseId, d.key, at, id).changes;
      }
      for (const id of plan.skipped) marked += sql(MARK).run("SKIPPED", releaseId, null, at, id).changes;
      // Rows taken by someone else meanwhile: roll the whole step back rather than plan them twice.
      if (marked !== held.length) throw new ReleaseRaceError(triggerId);
      step.released += held.length - plan.skipped.length;
      step.skipped += plan.skipped.length;
      step.planned += plan.deliveries.length;
    }
    sql(`UPDATE "Release" SET "released" = "released" + ?, "skipped" = "skipped" + ? WHERE "id" = ?`).run(
      step.released,
      step.skipped,
      releaseId,
    );
    return step;
  });
}
