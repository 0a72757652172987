import { mayCancelPreflight } from "../../../policy/access";
import {
  bindResumeCard,
  cancelResumeCard,
  chatPreflight,
  heldShown,
  keepResumedFooter,
  newResumeTokens,
  personName,
  resumeButton,
  resumedSinceCard,
} from "../../app/chat/resume";
import type { HandlerContext } from "../../app/context";
import { resumeAgent } from "../../app/control/resume";
import type { KnownAgent, KnownUser, StoredButton } from "../../app/records";
import type { ChatRefusal } from "./refusals";
import { preflightCard, settledCard, withChecklist } from "./resume-card";
import { alreadyRunningFooter, outOfDateFooter, resumedFooter } from "./resume-outcome";
import type { Card, ChatInteraction, ChatTransport, InteractionResult } from "./types";
import { tenantHoldNote, when } from "./words";

type Finished = InteractionResult | { refusal: ChatRefusal; card?: Card };

/** Step one of a chat resume: a preflight card with Confirm/Cancel, or the reason this user cannot resume. */
export async function startResume(
  ctx: HandlerContext,
  user: KnownUser,
  agent: KnownAgent,
  via: ChatTransport,
): Promise<{ card: Card } | { refusal: ChatRefusal }> {
  const preflight = await chatPreflight(ctx, user, agent, via.platform);
  if (preflight.kind !== "ready") return { refusal: { code: preflight.kind, agent: agent.name } };
  const credentials = await via.checkCredentials().catch((error: Error) => ({ ok: false, detail: error.message }));
  const tokens = newResumeTokens();
  const card = preflightCard(preflight, credentials, tokens);
  await bindResumeCard(ctx, { user, agent, tokens, card, preflight });
  return { card };
}

/** Step two: a click on Confirm or Cancel. Only the resume handler decides whether Confirm may resume. */
export async function finishResume(
  ctx: HandlerContext,
  user: KnownUser,
  click: ChatInteraction,
  via: ChatTransport,
): Promise<Finished> {
  const found = await resumeButton(ctx, user, { token: click.token, action: click.action, eventId: "" });
  if (!found) return { refusal: { code: "unknown_button" } };
  const { button, agent } = found;
  const shown = (button.payload.card as Card | undefined) ?? {
    title: `Resume ${agent.name}`,
    lines: [],
    fields: [],
    buttons: [],
  };
  if (click.action === "resume.cancel") {
    if (!mayCancelPreflight(user, button.requestedBy)) {
      return { refusal: { code: "cancel_forbidden", person: await personName(ctx, button.requestedBy) } };
    }
    await cancelResumeCard(ctx, button);
    return { note: "Resume cancelled.", card: settledCard(shown, `Cancelled by ${user.name} at ${when(ctx.now())}.`) };
  }
  // A card from before versions were bound (no controlVersion), or a cancelled one, is as stale as a used one.
  const bound = typeof button.payload.controlVersion === "number" && button.payload.cancelled !== true;
  if (!bound) return freshPreflight(ctx, user, agent, via, button, shown);
  const held = await heldShown(ctx, button, agent);
  const expectedVersion = button.payload.controlVersion as number;
  const override =
    click.action === "resume.override"
      ? { override: { reason: click.reason || `Resume anyway on the ${via.platform} card` } }
      : {};
  const resumer = { kind: "user" as const, user };
  const result = await resumeAgent(ctx, { resumer, agent, expectedVersion, ...override });
  ctx.log.info({ agent: agent.id, actor: user.id, outcome: result.kind, platform: via.platform }, "chat resume");
  if (result.kind === "stale") return freshPreflight(ctx, user, agent, via, button, shown);
  // The card shows what each check said at this click, not at the card's posting.
  const judged = result.checklist ? withChecklist(shown, result.checklist) : shown;
  if (result.kind === "resumed") {
    const footer = resumedFooter(user.name, held, ctx.now());
    await keepResumedFooter(ctx, button, footer);
    return { note: `${agent.name} resumed.${tenantHoldNote(result.control)}`, card: settledCard(judged, footer) };
  }
  if (result.kind === "checklist_failed") return { refusal: { code: result.kind, agent: agent.name }, card: judged };
  if (result.kind === "not_paused") {
    // A second Confirm (or a resume from elsewhere) finds it running: nothing fires twice, and the card
    // keeps who resumed it.
    const kept = button.payload.resumedFooter;
    const resumed = typeof kept === "string" ? null : await resumedSinceCard(ctx, button, agent);
    const footer = alreadyRunningFooter(kept, resumed, ctx.now());
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
): Promise<Finished> {
  const fresh = await startResume(ctx, user, agent, via);
  if ("card" in fresh) return { refusal: { code: "stale_card", agent: agent.name }, card: fresh.card };
  if (fresh.refusal.code !== "not_paused") return { refusal: fresh.refusal };
  // A re-sent Confirm of the card that resumed the agent: nothing fires twice, and it keeps who resumed.
  const kept = button.payload.resumedFooter;
  if (typeof kept === "string") return { note: `${agent.name} is already running.`, card: settledCard(shown, kept) };
  const footer = outOfDateFooter(await resumedSinceCard(ctx, button, agent), ctx.now());
  return { refusal: fresh.refusal, card: settledCard(shown, footer) };
}
