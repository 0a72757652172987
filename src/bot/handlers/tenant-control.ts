import { decidePause } from "../../policy/pause";
import { decideResume } from "../../policy/resume";
import { mayControlTenant } from "../../policy/roles";
import type { ControlChange, StoredControl } from "../../store/control";
import { changeControl, readControl } from "../../store/control";
import type { KnownUser } from "../../store/directory";
import { tenantScope } from "../../store/directory";
import type { HandlerContext } from "../context";

type TenantOutcome = "paused" | "raised" | "kept" | "resumed" | "not_paused";

export type TenantControlResult = { kind: TenantOutcome | "forbidden"; control: StoredControl };

/** A tenant-wide pause holds every agent of the tenant; only an admin sets or lifts it. */
async function changeTenant(
  ctx: HandlerContext,
  user: KnownUser,
  action: "pause" | "resume",
  change: ControlChange<TenantOutcome>,
): Promise<TenantControlResult> {
  const scope = tenantScope(user.tenantId);
  const kind = await changeControl<TenantControlResult["kind"]>(ctx.store.db, scope, (current) =>
    mayControlTenant(user)
      ? change(current)
      : { next: null, result: "forbidden", audit: { action, actorId: user.id, outcome: "forbidden" } },
  );
  ctx.events.emit("control.changed", scope);
  return { kind, control: (await readControl(ctx.store.db, scope))! };
}

export function pauseTenant(ctx: HandlerContext, user: KnownUser, reason: string, until: Date | null) {
  return changeTenant(ctx, user, "pause", (current) => {
    const decision = decidePause(current, { actorId: user.id, role: "admin", reason, until }, ctx.now());
    return {
      next: decision.outcome === "kept" ? null : decision.next,
      result: decision.outcome,
      audit: { action: "pause", actorId: user.id, outcome: decision.outcome, reason, holdLevel: "admin" },
    };
  });
}

export function resumeTenant(ctx: HandlerContext, user: KnownUser) {
  return changeTenant(ctx, user, "resume", (current) => {
    const decision = decideResume(current, { kind: "user", actorId: user.id, role: "admin" });
    if (decision.outcome !== "resumed" && decision.outcome !== "not_paused")
      throw new Error("an admin is never refused");
    return {
      next: decision.outcome === "resumed" ? decision.next : null,
      result: decision.outcome,
      audit: { action: "resume", actorId: user.id, outcome: decision.outcome },
    };
  });
}
