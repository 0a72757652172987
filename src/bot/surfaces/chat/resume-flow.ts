import { mayCancelPreflight } from "../../../policy/access";
import { agentScope } from "../../../policy/ids";
import {
  createChatButtons,
  findChatButton,
  newButtonId,
  replaceChatButtonPayload,
  type StoredButton,
} from "../../../store/chat/buttons";
import { recordRefusal } from "../../../store/control/change";
import { findAgentById, type KnownAgent, type KnownUser, userName } from "../../../store/directory/directory";
import type { HandlerContext } from "../../app/context";
import { resumePreflight } from "../../app/control/preflight";
import { resumeAgent } from "../../app/control/resume";
import type { ChatRefusal } from "./refusals";
import { preflightCard, settledCard } from "./resume-card";
import { alreadyRunningFooter, heldBeforeResume, outOfDateFooter, resumedFooter } from "./resume-outcome";
import type { Card, ChatInteraction, ChatTransport, InteractionResult } from "./types";
import { tenantHoldNote, when } from "./words";

/** Step one of a chat resume: a preflight card with Confirm/Cancel, or the reason this user cannot resume. */
export async function startResume(
  ctx: HandlerContext,
  user: KnownUser,
  agent: KnownAgent,
  via: ChatTransport,
): Promise<{ card: Card } | { refusal: ChatRefusal }> {
  const preflight = await resumePreflight(ctx, { user, agent });
  if (preflight.kind !== "ready") {
    // A person typing /resume is an attempt to resume: a refusal goes to the audit log (an API dry run is not).
    await recordRefusal(ctx.store.db, agentScope(agent.id), {
      action: "resume",
      actorId: user.id,
      outcome: preflight.kind,
      reason: "chat /resume",
      holdLevel: preflight.control.holdLevel,
    });
    return { refusal: { code: preflight.kind, agent: agent.name } };
  }
  const credentials = await via.checkCredentials().catch((error: Error) => ({ ok: false, detail: error.message }));
  const tokens = { confirm: newButtonId(), cancel: newButtonId() };
  const card = preflightCard(preflight, credentials, tokens);
  // The settled card keeps what the resumer saw, so the channel keeps a record of it; Confirm is bound to the
  // control record's version this preflight showed (design.md section 4: a used or outdated card is stale).
  const payload = { card, controlVersion: preflight.controlVersion, confirmToken: tokens.confirm };
  const base = { tenantId: user.tenantId, agentId: agent.id, requestedBy: user.id, payload };
  await createChatButtons(ctx.store.db, [
    { ...base, id: tokens.confirm, action: "resume.confirm" },
    { ...base, id: tokens.cancel, action: "resume.cancel" },
  ]);
  return { card };
}

/** Step two: a click on Confirm or Cancel. Only the resume handler decides whether Confirm may resume. */
export async function finishResume(
  ctx: HandlerContext,
  user: KnownUser,
  click: ChatInteraction,
  via: ChatTransport,
): Promise<InteractionResult | { refusal: ChatRefusal; card?: Card }> {
  const button = await findChatButton(ctx.store.db, click.token);
  // Another tenant's button is as unknown as a made-up one.
  if (!button || button.tenantId !== user.tenantId || button.action !== click.action || !button.agentId) {
    return { refusal: { code: "unknown_button" } };
  }
  const agent = await findAgentById(ctx.store.db, button.agentId);
  if (!agent) return { refusal: { code: "unknown_button" } };
  const shown = (button.payload.card as Card | undefined) ?? {
    title: `Resume ${agent.name}`,
    lines: [],
    fields: [],
    buttons: [],
  };
  const at = when(ctx.now());

  if (click.action === "resume.cancel") {
    if (!mayCancelPreflight(user, button.requestedBy)) {
      const person = (await userName(ctx.store.db, button.requestedBy)) ?? undefined;
      return { refusal: { code: "cancel_forbidden", person } };
    }
    // A cancelled card is used: its Confirm, clicked or re-sent later, resumes nothing.
    const confirmToken = button.payload.confirmToken;
    const confirm = typeof confirmToken === "string" ? await findChatButton(ctx.store.db, confirmToken) : null;
    if (confirm) await replaceChatButtonPayload(ctx.store.db, confirm.id, { ...confirm.payload, cancelled: true });
    return { note: "Resume cancelled.", card: settledCard(shown, `Cancelled by ${user.name} at ${at}.`) };
  }

  // A card from before versions were bound (no controlVersion), or a cancelled one, is as stale as a used one.
  const bound = typeof button.payload.controlVersion === "number" && button.payload.cancelled !== true;
  if (!bound) return freshPreflight(ctx, user, agent, via, button, shown);
  const shownVersion = button.payload.controlVersion as number;
  const held = await heldBeforeResume(ctx, agent);
  const result = await resumeAgent(ctx, { resumer: { kind: "user", user }, agent, expectedVersion: shownVersion });
  ctx.log.info({ agent: agent.id, actor: user.id, outcome: result.kind, platform: via.platform }, "chat resume");
  if (result.kind === "stale") return freshPreflight(ctx, user, agent, via, button, shown);
  if (result.kind === "resumed") {
    const footer = await resumedFooter(ctx, button, user, held);
    return { note: `${agent.name} resumed.${tenantHoldNote(result.control)}`, card: settledCard(shown, footer) };
  }
  if (result.kind === "not_paused") {
    // A second Confirm (or a resume from elsewhere) finds it running: nothing fires twice, and the card
    // keeps who resumed it.
    const footer = await alreadyRunningFooter(ctx, button, agent);
    return { note: `${agent.name} is already running.`, card: settledCard(shown, footer) };
  }
  return { refusal: { code: result.kind, agent: agent.name } };
}

/**
 * The state changed since the card was shown (or the card was used): nothing is resumed, and the card is
 * replaced by a fresh preflight, or settled when there is nothing left to resume.
 */
async function freshPreflight(
  ctx: HandlerContext,
  user: KnownUser,
  agent: KnownAgent,
  via: ChatTransport,
  button: StoredButton,
  shown: Card,
): Promise<InteractionResult | { refusal: ChatRefusal; card?: Card }> {
  const fresh = await startResume(ctx, user, agent, via);
  if ("card" in fresh) return { refusal: { code: "stale_card", agent: agent.name }, card: fresh.card };
  if (fresh.refusal.code !== "not_paused") return { refusal: fresh.refusal };
  // A re-sent Confirm of the card that resumed the agent: nothing fires twice, and it keeps who resumed.
  const kept = button.payload.resumedFooter;
  if (typeof kept === "string") return { note: `${agent.name} is already running.`, card: settledCard(shown, kept) };
  return { refusal: fresh.refusal, card: settledCard(shown, await outOfDateFooter(ctx, button, agent)) };
}
