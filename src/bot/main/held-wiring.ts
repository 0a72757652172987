import { schedulerMayResume } from "../../policy/access";
import type { HeldRuntime, HeldRuntimeOptions } from "../../queue/held/runtime";
import { startHeldRuntime } from "../../queue/held/runtime";
import { readControl } from "../../store/control/change";
import { findAgentById } from "../../store/directory/directory";
import type { HandlerContext } from "../app/context";
import { resumeAgent } from "../app/control/resume";
import { resumeTenant } from "../app/control/tenant-control";

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
  const quietly = (what: string) => (error: Error) =>
    ctx.log.warn({ err: error.message, what }, "held wiring step failed");
  ctx.events.on("trigger.changed", (id) => void runtime.triggerChanged(id).catch(quietly("trigger")));
  ctx.events.on("release.opened", (id) => void runtime.releaseOpened(id).catch(quietly("release")));
  ctx.events.on("control.changed", (scope) => void runtime.controlChanged(scope).catch(quietly("control")));
  ctx.events.on("inbox.received", (agent) => void runtime.eventReceived(agent).catch(quietly("inbox")));
  ctx.events.on("outbox.planned", () => runtime.delivery.nudge());
  return runtime;
}

/** Resumes only the pause the job was scheduled for: a pause replaced since (another until) is left alone. */
async function autoResume(ctx: HandlerContext, scope: string, until: Date): Promise<void> {
  const { db } = ctx.store;
  const control = await readControl(db, scope);
  if (!schedulerMayResume(control, until)) return;
  if (until.getTime() > ctx.now().getTime()) throw new Error("auto-resume ran early; retrying");
  if (scope.startsWith("tenant:")) {
    await resumeTenant(ctx, { kind: "scheduler", tenantId: scope.slice("tenant:".length) });
    return;
  }
  const agent = await findAgentById(db, scope.slice("agent:".length));
  if (agent) await resumeAgent(ctx, { resumer: { kind: "scheduler" }, agent });
}
