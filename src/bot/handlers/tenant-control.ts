import { decidePause } from "../../policy/pause";
import { decideResume } from "../../policy/resume";
import { mayControlTenant } from "../../policy/roles";
import type { StoredControl } from "../../store/control";
import { changeControl, readControl } from "../../store/control";
import type { KnownUser } from "../../store/directory";
import { tenantScope } from "../../store/directory";
import type { HandlerContext } from "../context";

export type TenantControlResult = {
  kind: "paused" | "raised" | "kept" | "resumed" | "forbidden" | "not_paused";
  control: StoredControl;
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
    const decision = decidePause(current, { actorId: user.id, role: "admin", reason, until }, ctx.now());
    return {
      next: decision.outcome === "kept" ? null : decision.next,
      result: decision.outcome,
      audit: { action: "pause", actorId: user.id, outcome: decision.outcome, reason, holdLevel: "admin" },
    };
  });
  return { kind, control: (await readControl(ctx.store.db, scope))! };
}

export async function resumeTenant(ctx: HandlerContext, user: KnownUser): Promise<TenantControlResult> {
  const scope = tenantScope(user.tenantId);
  const kind = await changeControl(ctx.store.db, scope, (current) => {
    if (!mayControlTenant(user)) {
      return {
        next: null,
        result: "forbidden" as const,
        audit: { action: "resume", actorId: user.id, outcome: "forbidden" },
      };
    }
    const decision = decideResume(current, { kind: "user", actorId: user.id, role: "admin" });
    return {
      next: decision.outcome === "resumed" ? decision.next : null,
      result: decision.outcome as TenantControlResult["kind"],
      audit: { action: "resume", actorId: user.id, outcome: decision.outcome },
    };
  });
  return { kind, control: (await readControl(ctx.store.db, scope))! };
}
