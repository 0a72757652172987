import type { Step } from "../../../policy/escalation";
import { bindCardButtons } from "../../../store/chat/posted-cards";
import type { KnownAgent } from "../../../store/directory/directory";
import { recordStep } from "../../../store/escalations/ledger";
import type { StoredEscalation } from "../../../store/escalations/records";
import { cardTargets, channelsOf } from "../cards/card-targets";
import { postCards } from "../cards/post-card";
import type { HandlerContext } from "../context";
import { NO_PLATFORM_WORDS } from "./escalations";
import { itemFacts } from "./item-facts";
import type { PingDeps } from "./ports";

/**
 * One step of one escalation: its ledger row first (the database decides who sends, and that it is sent
 * once), then one card per target and platform, each claimed before its post.
 */
export async function sendPing<C>(
  ctx: HandlerContext,
  deps: PingDeps<C>,
  escalation: StoredEscalation,
  agent: KnownAgent,
  step: Step,
): Promise<void> {
  const { db } = ctx.store;
  const notified = escalation.policy.levels[step.level - 1]?.notify ?? [];
  const outcome = await recordStep(ctx.store, escalation, step, notified, ctx.now());
  if (outcome !== "sent") {
    ctx.events.emit("escalation.suppressed", outcome);
    return;
  }
  const facts = await itemFacts(ctx.store, escalation, agent);
  if (!facts) return; // gone since this tick read it: the next tick resolves the escalation
  // Take over is for approvals only.
  const actions: { ack: string; takeOver?: string } =
    escalation.kind === "approval"
      ? { ack: "escalation.ack", takeOver: "escalation.takeover" }
      : { ack: "escalation.ack" };
  const owner = { tenantId: escalation.tenantId, agentId: escalation.agentId };
  const tokens = await bindCardButtons(db, owner, actions, { escalationId: escalation.id });
  const card = deps.render.ping(escalation.kind, facts, { ...step, since: escalation.since }, tokens);
  const targets = await cardTargets(
    ctx,
    channelsOf(agent.settings.escalationChannel),
    notified,
    deps.publishers,
    (platform, user, error) =>
      ctx.log.warn({ escalation: escalation.id, platform, user, err: error.message }, "cannot open a DM for a ping"),
  );
  const subject = { kind: "ping" as const, escalationId: escalation.id, level: step.level, repeat: step.repeat };
  const posted = await postCards(
    ctx,
    { ...subject, content: card },
    targets,
    deps.publishers,
    async () => card,
    (target, error) => ctx.log.warn({ escalation: escalation.id, ...target, err: error.message }, "ping not posted"),
  );
  ctx.events.emit("escalation.sent", step.level);
  // `escalationLevel`, not `level`: pino's own `level` field must not be overwritten.
  const fields = { escalation: escalation.id, kind: escalation.kind, escalationLevel: step.level, repeat: step.repeat };
  const postedTo = posted.map((t) => `${t.platform}:${t.channelId}`).join(", ");
  if (postedTo) ctx.log.info({ ...fields, postedTo }, "escalation ping sent");
  else ctx.log.info({ ...fields, postedTo: NO_PLATFORM_WORDS }, `escalation ping: ${NO_PLATFORM_WORDS}`);
}
