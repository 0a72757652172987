import type { AgentLimits } from "../../../policy/agent-settings";
import { parseContract } from "../../../policy/delivery";
import { triggerId } from "../../../policy/ids";
import { shortestGapMs } from "../../../policy/quotas";
import { anchorOffset, nextDueAfter } from "../../../policy/schedule";
import type { KnownAgent } from "../../../store/directory/directory";
import type { StoredTrigger, TriggerSpec } from "../../../store/held/triggers";
import {
  cadenceOf,
  countTriggers,
  deleteTrigger,
  findTrigger,
  listTriggers,
  upsertTrigger,
} from "../../../store/held/triggers";
import { triggerPage } from "../../../store/lists/pages";
import { destinationContract } from "../approvals/destinations";
import type { HandlerContext } from "../context";

/**
 * What a caller asks for. The contract, when given at all, must be the one config declares. `anchor`: an
 * `every` trigger's slots are `anchor + k * every` (default: the Unix epoch).
 */
export type TriggerInput = Omit<TriggerSpec, "tenantId" | "agentId" | "contract" | "anchorOffsetMs"> & {
  contract?: string;
  anchor?: Date | null;
};

export type RegisterResult =
  | { kind: "registered"; trigger: TriggerView }
  | { kind: "invalid"; field: string; message: string }
  | { kind: "quota_exceeded"; message: string };

/** The agent's quotas, resolved from config at load (`limits:` on the tenant or the agent). */
export const limitsOf = (agent: KnownAgent): AgentLimits => agent.settings.limits;

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

/**
 * Registers (or updates) a trigger. It may only post to a destination declared for the agent, under that
 * destination's contract from config: a caller cannot name another address, nor a lookup URL the bot would
 * then query. The agent's quotas bound how many triggers it has and how often each fires.
 */
export async function registerTrigger(
  ctx: HandlerContext,
  agent: KnownAgent,
  input: TriggerInput,
): Promise<RegisterResult> {
  // One reading of the clock: the stored start is what the catch-up counts slots from, so the announced next
  // due time is the first slot after that same moment, however long the database took in between.
  const now = ctx.now();
  const refusal = checkTrigger(agent, input, now);
  if (refusal) return refusal;
  const { db } = ctx.store;
  const limits = limitsOf(agent);
  const isNew = !(await findTrigger(db, triggerId(agent.id, input.key)));
  if (isNew && (await countTriggers(db, agent.id)) >= limits.maxTriggers) {
    return { kind: "quota_exceeded", message: `agent ${agent.name} already has ${limits.maxTriggers} triggers` };
  }
  const contract = destinationContract(agent, input.destination)!;
  const { anchor, ...spec } = input;
  const anchorOffsetMs = spec.everyMs ? anchorOffset(spec.everyMs, anchor ?? null) : 0;
  const stored = await upsertTrigger(
    db,
    { ...spec, anchorOffsetMs, contract, tenantId: agent.tenantId, agentId: agent.id },
    now,
  );
  ctx.events.emit("trigger.changed", stored.id);
  return { kind: "registered", trigger: triggerView(stored, now) };
}

function checkTrigger(agent: KnownAgent, input: TriggerInput, now: Date): RegisterResult | null {
  const declared = destinationContract(agent, input.destination);
  if (declared === undefined) {
    return { kind: "invalid", field: "destination", message: `not a declared destination of agent ${agent.name}` };
  }
  if (input.contract !== undefined) {
    const asked = parseContract(input.contract);
    if (asked?.lookupUrl) {
      return { kind: "invalid", field: "contract", message: "a lookup URL comes only from the destination's config" };
    }
    if (JSON.stringify(asked) !== JSON.stringify(parseContract(declared))) {
      return {
        kind: "invalid",
        field: "contract",
        message: `the destination's contract is '${declared}' (from config); leave contract out`,
      };
    }
  }
  const { minIntervalMs } = limitsOf(agent);
  const gap = shortestGapMs(cadenceOf({ ...input, anchorOffsetMs: 0 }), now);
  if (gap < minIntervalMs) {
    const field = input.cron ? "cron" : "every";
    return { kind: "invalid", field, message: `fires every ${gap} ms; the minimum interval is ${minIntervalMs} ms` };
  }
  return null;
}

/** Every trigger of the agent, by key (the console's agent page). */
export async function agentTriggers(ctx: HandlerContext, agent: KnownAgent): Promise<TriggerView[]> {
  const now = ctx.now();
  return (await listTriggers(ctx.store.db, agent.id)).map((t) => triggerView(t, now));
}

/** One page of the agent's triggers, by key. */
export async function triggerPageOf(ctx: HandlerContext, agent: KnownAgent, limit: number, after?: string) {
  const page = await triggerPage(ctx.store.db, agent.id, { limit, after });
  return { items: page.items.map((t) => triggerView(t, ctx.now())), next: page.next };
}

export async function removeTrigger(ctx: HandlerContext, agent: KnownAgent, key: string): Promise<boolean> {
  const id = triggerId(agent.id, key);
  const removed = await deleteTrigger(ctx.store.db, id);
  if (removed) ctx.events.emit("trigger.changed", id);
  return removed;
}
