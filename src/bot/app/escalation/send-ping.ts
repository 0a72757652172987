import type { Step } from "../../../policy/escalation";
import { createChatButtons, newButtonId } from "../../../store/chat/buttons";
import type { KnownAgent } from "../../../store/directory/directory";
import { claimPingCard, recordPostedPingCard, releasePingCardClaim } from "../../../store/escalations/cards";
import { recordStep } from "../../../store/escalations/ledger";
import type { StoredEscalation } from "../../../store/escalations/records";
import { cardTargets, channelsOf } from "../../surfaces/chat/card-targets";
import type { CardPublisher, Platform } from "../../surfaces/chat/types";
import type { HandlerContext } from "../context";
import { itemFacts } from "./item-facts";
import { pingCard } from "./ping-card";

export interface PingDeps {
  publishers: Partial<Record<Platform, CardPublisher>>;
  publicUrl: string;
}

/**
 * One step of one escalation: its ledger row first (the database decides who sends, and that it is sent
 * once), then one card per target and platform, each claimed before its post.
 */
export async function sendPing(
  ctx: HandlerContext,
  deps: PingDeps,
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
  const facts = await itemFacts(db, escalation, agent);
  if (!facts) return; // gone since this tick read it: the next tick resolves the escalation
  const tokens = { ack: newButtonId(), takeOver: escalation.kind === "approval" ? newButtonId() : undefined };
  const base = { tenantId: escalation.tenantId, agentId: escalation.agentId, requestedBy: null };
  const payload = { escalationId: escalation.id };
  await createChatButtons(db, [
    { ...base, id: tokens.ack, action: "escalation.ack", payload },
    ...(tokens.takeOver ? [{ ...base, id: tokens.takeOver, action: "escalation.takeover", payload }] : []),
  ]);
  const card = pingCard(escalation.kind, facts, { ...step, since: escalation.since }, tokens, deps.publicUrl);
  const targets = await cardTargets(
    db,
    channelsOf(agent.settings.escalationChannel),
    notified,
    deps.publishers,
    (platform, user, error) =>
      ctx.log.warn({ escalation: escalation.id, platform, user, err: error.message }, "cannot open a DM for a ping"),
  );
  for (const target of targets) {
    const key = { escalationId: escalation.id, level: step.level, repeat: step.repeat, ...target };
    const claim = await claimPingCard(db, key, card);
    if (claim === null) continue;
    try {
      const ref = await deps.publishers[target.platform]!.post(target.channelId, card);
      await recordPostedPingCard(db, claim, ref.messageId);
    } catch (error) {
      await releasePingCardClaim(db, claim);
      ctx.log.warn({ escalation: escalation.id, ...target, err: (error as Error).message }, "ping not posted");
    }
  }
  ctx.events.emit("escalation.sent", step.level);
  ctx.log.info(
    { escalation: escalation.id, kind: escalation.kind, level: step.level, repeat: step.repeat },
    "escalation ping sent",
  );
}
