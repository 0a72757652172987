import { decidePause } from "../../policy/pause";
import { decideResume, type ResumeActor } from "../../policy/resume";
import { mayControlTenant } from "../../policy/roles";
import type { StoredControl } from "../../store/control";
import { changeControl, readControl } from "../../store/control";
import type { KnownUser } from "../../store/directory";
import { tenantScope } from "../../store/directory";
import { settleDrain } from "../../store/drain";
import { openRelease } from "../../store/releases";
import type { HandlerContext } from "../context";
import { withDrainDeadline } from "./pause";

export type TenantControlResult = {
  kind: "paused" | "raised" | "kept" | "resumed" | "forbidden" | "not_paused";
  control: StoredControl;
  releaseId?: string;
};

/** A tenant-wide pause holds every agent of the tenant; only an admin sets or lifts it. */
export async function pauseTenant(
  ctx: HandlerContext,
  user: KnownUser,
  reason: string,
  until: Date | null,
): Promise<TenantControlResult> {
  const scope = tenantScope(user.tenantId);
  const kind = await changeControl(ctx.store.db, scope, (current) => {
    if (!mayControlTenant(user)) {
      return {
        next: null,
        result: "forbidden" as const,
        audit: { action: "pause", actorId: user.id, outcome: "forbidden", reason },
      };
    }
    const now = ctx.now();
    const decision = decidePause(current, { actorId: user.id, role: "admin", reason, until }, now);
    return {
      next: decision.outcome === "kept" ? null : withDrainDeadline(decision, now, ctx.drainTimeoutMs),
      result: decision.outcome,
      audit: { action: "pause", actorId: user.id, outcome: decision.outcome, reason, holdLevel: "admin" },
    };
  });
  if (kind === "paused" || kind === "raised") await settleDrain(ctx.store.db, scope, ctx.now());
  if (kind === "paused" || kind === "raised") ctx.events.emit("control.changed", scope);
  return { kind, control: (await readControl(ctx.store.db, scope))! };
}

/** An admin lifting the tenant's pause, or the trusted scheduler acting on its `until`. */
export async function resumeTenant(
  ctx: HandlerContext,
  user: KnownUser | { kind: "scheduler"; tenantId: string },
): Promise<TenantControlResult> {
  const isScheduler = "kind" in user;
  const scope = tenantScope(user.tenantId);
  const actorId = isScheduler ? null : user.id;
  let releaseId: string | undefined;
  const kind = await changeControl(
    ctx.store.db,
    scope,
    (current) => {
      releaseId = undefined;
      if (!isScheduler && !mayControlTenant(user)) {
        return { next: null, result: "forbidden" as const, audit: { action: "resume", actorId, outcome: "forbidden" } };
      }
      const actor: ResumeActor = isScheduler
        ? { kind: "scheduler" }
        : { kind: "user", actorId: user.id, role: "admin" };
      const decision = decideResume(current, actor);
      return {
        next: decision.outcome === "resumed" ? decision.next : null,
        result: decision.outcome as TenantControlResult["kind"],
        audit: { action: "resume", actorId, outcome: decision.outcome },
      };
    },
    undefined,
    async (tx, result, before) => {
      if (result !== "resumed") return;
      releaseId = await openRelease(tx, {
        tenantId: user.tenantId,
        agentId: null,
        requestedBy: actorId ?? "scheduler",
        heldSince: before.setAt,
        now: ctx.now(),
      });
    },
  );
  if (releaseId) {
    ctx.events.emit("control.changed", scope);
    ctx.events.emit("release.opened", releaseId);
  }
  return { kind, control: (await readControl(ctx.store.db, scope))!, ...(releaseId ? { releaseId } : {}) };
}
