import { anchorOffset, nextDueAfter } from "../../policy/schedule";
import type { KnownAgent } from "../../store/directory";
import type { StoredTrigger, TriggerSpec } from "../../store/triggers";
import { cadenceOf, deleteTrigger, listTriggers, triggerId, upsertTrigger } from "../../store/triggers";
import type { HandlerContext } from "../context";

/** `anchor`: an `every` trigger's slots are `anchor + k * every` (default: the Unix epoch). */
export type TriggerInput = Omit<TriggerSpec, "tenantId" | "agentId" | "anchorOffsetMs"> & {
  anchor?: Date | null;
};

/** The trigger as the API shows it. */
export interface TriggerView {
  key: string;
  every: number | null;
  /** The earliest slot at or after the epoch; every slot is this plus a whole number of intervals. */
  anchor: string | null;
  cron: string | null;
  tz: string | null;
  payload: unknown;
  destination: string;
  misfire: string;
  contract: string;
  lastDueAt: string | null;
  nextDueAt: string;
}

export function triggerView(t: StoredTrigger, now: Date): TriggerView {
  return {
    key: t.key,
    every: t.everyMs,
    anchor: t.everyMs ? new Date(t.anchorOffsetMs).toISOString() : null,
    cron: t.cron,
    tz: t.tz,
    payload: t.payload,
    destination: t.destination,
    misfire: t.misfire,
    contract: t.contract,
    lastDueAt: t.lastDueAt?.toISOString() ?? null,
    nextDueAt: nextDueAfter(cadenceOf(t), now).toISOString(),
  };
}

export async function registerTrigger(ctx: HandlerContext, agent: KnownAgent, input: TriggerInput) {
  const { anchor, ...spec } = input;
  const anchorOffsetMs = spec.everyMs ? anchorOffset(spec.everyMs, anchor ?? null) : 0;
  const stored = await upsertTrigger(
    ctx.store.db,
    { ...spec, anchorOffsetMs, tenantId: agent.tenantId, agentId: agent.id },
    ctx.now(),
  );
  ctx.events.emit("trigger.changed", stored.id);
  return triggerView(stored, ctx.now());
}

export async function triggersOf(ctx: HandlerContext, agent: KnownAgent) {
  return (await listTriggers(ctx.store.db, agent.id)).map((t) => triggerView(t, ctx.now()));
}

export async function removeTrigger(ctx: HandlerContext, agent: KnownAgent, key: string): Promise<boolean> {
  const id = triggerId(agent.id, key);
  const removed = await deleteTrigger(ctx.store.db, id);
  if (removed) ctx.events.emit("trigger.changed", id);
  return removed;
}
