import { mayControlTenant } from "../../../policy/access";
import { tenantScope } from "../../../policy/ids";
import { decidePause, type PauseOutcome } from "../../../policy/pause";
import type { ResumeRefusal } from "../../../policy/resume";
import type { Tx } from "../../../store";
import type { StoredControl } from "../../../store/control/change";
import { changeControl } from "../../../store/control/change";
import { settleDrainOf } from "../../../store/control/drain";
import { revokeAgentTokens } from "../../../store/directory/agent-tokens";
import type { KnownUser } from "../../../store/directory/directory";
import type { HandlerContext } from "../context";
import { withDrainDeadline } from "./pause";
import { resumeAsRelease } from "./resume-release";

export type TenantControlResult = {
  /** An admin is never refused with creator_hold; the type says what the shared resume rules can answer. */
  kind: PauseOutcome | "resumed" | ResumeRefusal;
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
  const now = ctx.now();
  const revoke = async (tx: Tx, kind: TenantControlResult["kind"]) => {
    if (kind !== "forbidden") await revokeAgentTokens(tx, { tenantId: user.tenantId }, now);
  };
  const changed = await changeControl(
    ctx.store.db,
    scope,
    (current) => {
      if (!mayControlTenant(user)) {
        return {
          next: null,
          result: "forbidden" as const,
          audit: { action: "pause", actorId: user.id, outcome: "forbidden", reason },
        };
      }
      const decision = decidePause(current, { actorId: user.id, role: "admin", reason, until }, now);
      return {
        next: decision.outcome === "kept" ? null : withDrainDeadline(decision, now, ctx.drainTimeoutMs),
        result: decision.outcome,
        audit: { action: "pause", actorId: user.id, outcome: decision.outcome, reason, holdLevel: "admin" },
      };
    },
    { alsoInTransaction: revoke },
  );
  const kind = changed.result;
  let control = changed.control;
  if (kind === "paused" || kind === "raised")
    control = (await settleDrainOf(ctx.store, control, ctx.now())).control ?? control;
  if (kind === "paused" || kind === "raised") ctx.events.emit("control.changed", scope);
  return { kind, control };
}

/** An admin lifting the tenant's pause, or the trusted scheduler acting on its `until`. */
export async function resumeTenant(
  ctx: HandlerContext,
  user: KnownUser | { kind: "scheduler"; tenantId: string },
): Promise<TenantControlResult> {
  const isScheduler = "kind" in user;
  const scope = tenantScope(user.tenantId);
  const { outcome, releaseId, control } = await resumeAsRelease(ctx, {
    scope,
    tenantId: user.tenantId,
    agentId: null,
    actor: isScheduler ? { kind: "scheduler" } : { kind: "user", actorId: user.id, role: "admin" },
    actorId: isScheduler ? null : user.id,
    ...(!isScheduler && !mayControlTenant(user) ? { refuse: "forbidden" as const } : {}),
  });
  return { kind: outcome, control, ...(releaseId ? { releaseId } : {}) };
}
