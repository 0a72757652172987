import { decideResume } from "../../policy/resume";
import { effectiveRole } from "../../policy/roles";
import { readControl } from "../../store/control";
import type { KnownAgent, KnownUser } from "../../store/directory";
import { agentScope, standingOf, tenantScope } from "../../store/directory";
import { heldSummary } from "../../store/held-summary";
import type { HandlerContext } from "../context";
import { controlView } from "./control-view";

/**
 * What `/resume` would release, and whether this caller may do it (design.md section 4). Reads only:
 * a dry run changes nothing, not even the audit log.
 */
export async function resumePreflight(ctx: HandlerContext, user: KnownUser, agent: KnownAgent) {
  const { db } = ctx.store;
  const role = effectiveRole(await standingOf(db, user, agent));
  const control = (await readControl(db, agentScope(agent.id)))!;
  const tenant = await readControl(db, tenantScope(agent.tenantId));
  const verdict = decideResume(control, { kind: "user", actorId: user.id, role });
  const held = await heldSummary(db, agent.id);
  return {
    dryRun: true,
    control: await controlView(db, agent.name, control),
    tenantPaused: tenant ? tenant.state !== "RUNNING" : true,
    requestedBy: { user: user.name, role },
    allowed: verdict.outcome === "resumed",
    ...(verdict.outcome === "resumed" ? {} : { refusal: verdict.outcome }),
    held: {
      occurrences: held.heldOccurrences,
      occurrencesByTrigger: held.occurrencesByTrigger,
      inboundEvents: held.inboundEvents,
      outboxActions: held.outboxActions,
    },
    needsReview: held.needsReview,
  };
}
