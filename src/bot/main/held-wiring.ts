import { schedulerMayResume } from "../../policy/access";
import { parseScope } from "../../policy/ids";
import type { HeldRuntime, HeldRuntimeOptions } from "../../queue/held/runtime";
import { startHeldRuntime } from "../../queue/held/runtime";
import { readControl } from "../../store/control/change";
import { findAgentById } from "../../store/directory/directory";
import type { HandlerContext } from "../app/context";
import { resumeAgent } from "../app/control/resume";
import { resumeTenant } from "../app/control/tenant-control";
import { react } from "./reactions";

export type HeldWiringOptions = Omit<HeldRuntimeOptions, "store" | "log" | "now" | "autoResume">;

/**
 * Starts the held-work runtime and connects it to the handlers: their events start jobs, and the trusted
 * scheduler's auto-resume goes through the same resume handlers as a person's, so it is a release too.
 */
export async function startHeld(ctx: HandlerContext, options: HeldWiringOptions): Promise<HeldRuntime> {
  const runtime = await startHeldRuntime({
    ...options,
    store: ctx.store,
    log: ctx.log,
    now: ctx.now,
    metrics: ctx.metrics,
    autoResume: (scope, until) => autoResume(ctx, scope, until),
    onRedisRebuilt: async () => {
      ctx.events.emit("redis.rebuilt");
    },
  });
  // For the life of the process, as before: the runtime's stop closes its workers, and a late hint finds them closed.
  react(ctx, {
    held: {
      triggerChanged: (id) => runtime.triggerChanged(id),
      releaseOpened: (id) => runtime.releaseOpened(id),
      controlChanged: (scope) => runtime.controlChanged(scope),
      eventReceived: (agentId) => runtime.eventReceived(agentId),
      nudgeDelivery: () => runtime.delivery.nudge(),
    },
  });
  return runtime;
}

/** Resumes only the pause the job was scheduled for: a pause replaced since (another until) is left alone. */
async function autoResume(ctx: HandlerContext, scope: string, until: Date): Promise<void> {
  const { db } = ctx.store;
  const control = await readControl(db, scope);
  if (!schedulerMayResume(control, until)) return;
  if (until.getTime() > ctx.now().getTime()) throw new Error("auto-resume ran early; retrying");
  const parsed = parseScope(scope);
  if (parsed?.kind === "tenant") {
    await resumeTenant(ctx, { kind: "scheduler", tenantId: parsed.tenantId });
    return;
  }
  if (!parsed) return;
  const agent = await findAgentById(db, parsed.agentId);
  if (agent) await resumeAgent(ctx, { resumer: { kind: "scheduler" }, agent });
}
