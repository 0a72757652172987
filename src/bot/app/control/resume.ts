import { agentScope, tenantScope } from "../../../policy/ids";
import { decideResume, type ResumeActor } from "../../../policy/resume";
import { type CheckItem, checklistFails, checklistSummary } from "../../../policy/resume-checklist";
import { effectiveRole } from "../../../policy/roles";
import { readControl, recordRefusal } from "../../../store/control/change";
import type { KnownAgent, KnownUser } from "../../../store/directory/directory";
import { standingOf } from "../../../store/directory/directory";
import type { HandlerContext } from "../context";
import { type Checklist, runChecklist } from "./checklist";
import type { ControlView } from "./control-view";
import { controlView } from "./control-view";
import { type ReleasingOutcome, resumeAsRelease } from "./resume-release";

/** A person resuming, or the trusted scheduler acting on a pause's `until`. */
export type Resumer = { kind: "user"; user: KnownUser } | { kind: "scheduler" };

export interface ResumeCommand {
  resumer: Resumer;
  agent: KnownAgent;
  /** Resume only if the control record is still at this version (a chat Confirm names the preflight it showed). */
  expectedVersion?: number;
  /** "Resume anyway": a principal or admin releases despite a failing check, with a reason (audited). */
  override?: { reason: string };
}

/** A person's resume with a failing check and no override: nothing changed, the agent stays paused. */
export type ChecklistOutcome = "checklist_failed";

export type ResumeResult<K = Exclude<ReleasingOutcome, "stale"> | ChecklistOutcome> = {
  kind: K;
  control: ControlView;
  releaseId?: string;
  /** What each check said (a person's resume; the scheduler's `until` has no one to ask). */
  checklist?: CheckItem[];
};

/** Without an expected version a resume is never `stale`. */
export async function resumeAgent(
  ctx: HandlerContext,
  command: ResumeCommand & { expectedVersion?: undefined },
): Promise<ResumeResult>;
export async function resumeAgent(
  ctx: HandlerContext,
  command: ResumeCommand,
): Promise<ResumeResult<ReleasingOutcome | ChecklistOutcome>>;
export async function resumeAgent(
  ctx: HandlerContext,
  command: ResumeCommand,
): Promise<ResumeResult<ReleasingOutcome | ChecklistOutcome>> {
  const { db } = ctx.store;
  const { resumer, agent } = command;
  const actor: ResumeActor =
    resumer.kind === "scheduler"
      ? { kind: "scheduler" }
      : { kind: "user", actorId: resumer.user.id, role: effectiveRole(await standingOf(db, resumer.user, agent)) };
  const actorId = resumer.kind === "user" ? resumer.user.id : null;
  const scope = agentScope(agent.id);
  const checked = resumer.kind === "user" ? await checkBeforeResume(ctx, agent, resumer.user, actor) : null;
  if (checked && checklistFails(checked.items) && !command.override) {
    const current = (await readControl(db, scope))!;
    await recordRefusal(db, scope, {
      action: "resume",
      actorId,
      outcome: "checklist_failed",
      reason: checklistSummary(checked.items),
      holdLevel: current.holdLevel,
    });
    ctx.log.info({ agent: agent.id, actor: actorId, outcome: "checklist_failed" }, "resume");
    const known = resumer.kind === "user" ? resumer.user : undefined;
    const view = await controlView(db, agent, current, null, known);
    return { kind: "checklist_failed", control: view, checklist: checked.items };
  }
  const auditReason = checked
    ? `${command.override ? `override: ${command.override.reason}; ` : ""}${checklistSummary(checked.items)}`
    : undefined;
  const { outcome, releaseId, control, alongside } = await resumeAsRelease(ctx, {
    scope,
    tenantId: agent.tenantId,
    agentId: agent.id,
    actor,
    actorId,
    alongside: tenantScope(agent.tenantId),
    ...(command.expectedVersion !== undefined && { expectedVersion: command.expectedVersion }),
    ...(auditReason ? { auditReason } : {}),
    ...(checked?.retriesOff.length ? { retriesOff: checked.retriesOff } : {}),
  });
  ctx.log.info({ agent: agent.id, actor: actorId ?? "scheduler", outcome }, "resume");
  const known = resumer.kind === "user" ? resumer.user : undefined;
  const view = await controlView(db, agent, control, alongside, known);
  return {
    kind: outcome,
    control: view,
    ...(releaseId ? { releaseId } : {}),
    ...(checked && outcome === "resumed" ? { checklist: checked.items } : {}),
  };
}

/**
 * The checklist runs only for a resume the rules would let through: a refused or running agent is answered
 * as before, without asking the agent anything.
 */
async function checkBeforeResume(
  ctx: HandlerContext,
  agent: KnownAgent,
  user: KnownUser,
  actor: ResumeActor,
): Promise<Checklist | null> {
  const current = await readControl(ctx.store.db, agentScope(agent.id));
  if (!current || decideResume(current, actor).outcome !== "resumed" || actor.kind !== "user") return null;
  return runChecklist(ctx, { agent, control: current, resumer: { name: user.name, role: actor.role } });
}
