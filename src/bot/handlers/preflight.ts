import type { ResumeRefusal } from "../../policy/resume";
import { decideResume } from "../../policy/resume";
import { effectiveRole, type Role } from "../../policy/roles";
import { readControl, recordRefusal } from "../../store/control";
import type { KnownAgent, KnownUser } from "../../store/directory";
import { agentScope, standingOf } from "../../store/directory";
import { countHeldWork, type HeldCounts } from "../../store/held-work";
import type { HandlerContext } from "../context";
import { type ControlView, controlView } from "./control-view";

export interface PreflightCommand {
  user: KnownUser;
  agent: KnownAgent;
}

/** ready: this user may resume now, and this is what a resume would release. */
export type PreflightResult =
  | { kind: "ready"; control: ControlView; held: HeldCounts; resumer: { name: string; role: Role } }
  | { kind: ResumeRefusal; control: ControlView };

/**
 * The first step of a resume (design.md section 4): checks, with the same rule the resume itself uses,
 * that the user may resume, and counts the held work. Writes nothing but the audit row of a refusal, so a
 * chat card and the API's `dryRun` can show it freely.
 */
export async function resumePreflight(ctx: HandlerContext, command: PreflightCommand): Promise<PreflightResult> {
  const { db } = ctx.store;
  const { user, agent } = command;
  const scope = agentScope(agent.id);
  const current = (await readControl(db, scope))!;
  const role = effectiveRole(await standingOf(db, user, agent));
  const decision = decideResume(current, { kind: "user", actorId: user.id, role });
  const control = await controlView(db, agent.name, current);
  if (decision.outcome !== "resumed") {
    await recordRefusal(db, scope, {
      action: "resume",
      actorId: user.id,
      outcome: decision.outcome,
      reason: "preflight",
      holdLevel: current.holdLevel,
    });
    return { kind: decision.outcome, control };
  }
  return { kind: "ready", control, held: await countHeldWork(db, agent.id), resumer: { name: user.name, role } };
}
