import { parseContract } from "../../policy/delivery";
import { runName } from "../../policy/ids";
import type { Db, Store } from "../connection/client";
import { asDate, rows, sqlText } from "../connection/sql";
import { AGENT_INDEXED, agentOutbox } from "../outbox/agent-index";

// What the resume checklist reads of the held ledger (policy/resume-checklist.ts judges it): rows since the
// pause, as the database holds them, whatever put them there.

/** Every occurrence row of the agent due after the pause, in any state, one entry per row. */
export async function dueTimesSince(
  db: Db,
  agentId: string,
  since: Date,
): Promise<Array<{ triggerId: string; dueAt: Date }>> {
  return db.occurrence.findMany({
    where: { agentId, dueAt: { gt: since } },
    select: { triggerId: true, dueAt: true },
    orderBy: { dueAt: "asc" },
  });
}

export interface HeldActionRow {
  id: string;
  runId: string | null;
  destination: string;
  contract: string;
  createdAt: Date;
}

const plannedActions = sqlText(
  (d) => `SELECT "id", "runId", "destination", "contract", "createdAt" FROM ${agentOutbox(d)}
  WHERE "agentId" = ? AND "kind" = 'action' AND "state" = 'PLANNED' AND ${AGENT_INDEXED}
  ORDER BY "createdAt"`,
);

/** The agent's approved actions that wait to be sent (the outbox row is written at the approval). */
export async function heldActions(store: Store, agentId: string): Promise<HeldActionRow[]> {
  const found = await store.sql.read(function* (d) {
    return yield* rows<Omit<HeldActionRow, "createdAt"> & { createdAt: unknown }>(plannedActions(d), agentId);
  });
  return found.map((row) => ({ ...row, createdAt: asDate(row.createdAt) }));
}

/** The events that arrived during the pause: how many still wait, and which were already delivered. */
export async function inboundSince(db: Db, agentId: string, since: Date): Promise<{ waiting: number; done: string[] }> {
  const rows = await db.inboxEvent.findMany({
    where: { agentId, receivedAt: { gte: since } },
    select: { eventId: true, state: true },
  });
  const done = rows.filter((r) => r.state === "DONE").map((r) => r.eventId);
  return { waiting: rows.length - done.length, done };
}

/** The latest checkpoint any run of the agent recorded: the one the agent is asked to confirm. */
export async function lastCheckpointOf(
  db: Db,
  agentId: string,
): Promise<{ run: string; name: string; at: Date; vars: Record<string, unknown> } | null> {
  const run = await db.run.findFirst({
    where: { agentId, checkpoint: { not: null } },
    orderBy: [{ updatedAt: "desc" }, { id: "desc" }],
    select: { id: true, tenantId: true, checkpoint: true, vars: true, updatedAt: true },
  });
  if (!run?.checkpoint) return null;
  return {
    run: runName(run.tenantId, run.id),
    name: run.checkpoint,
    at: run.updatedAt,
    vars: JSON.parse(run.vars) as Record<string, unknown>,
  };
}

/**
 * Sends the listed held actions with retries off: their destination can no longer deduplicate a resend, so
 * an uncertain outcome must go to review, which is what contract `none` does (a lookup, if any, is kept).
 */
export async function turnRetriesOff(
  db: Pick<Db, "outboxItem">,
  actions: ReadonlyArray<{ key: string; contract: string }>,
): Promise<void> {
  for (const action of actions) {
    const lookup = parseContract(action.contract)?.lookupUrl;
    await db.outboxItem.updateMany({
      where: { id: action.key, state: "PLANNED" },
      data: { contract: lookup ? `none lookup ${lookup}` : "none" },
    });
  }
}
