import { agentScope } from "../../../policy/ids";
import type { Platform } from "../../../policy/platforms";
import {
  createChatButtons,
  findChatButton,
  newButtonId,
  replaceChatButtonPayload,
  type StoredButton,
} from "../../../store/chat/buttons";
import { lastResumeSince } from "../../../store/control/audit";
import { recordRefusal } from "../../../store/control/change";
import { findAgentById, type KnownAgent, type KnownUser, userName } from "../../../store/directory/directory";
import { countHeldWork } from "../../../store/held/counts";
import type { HandlerContext } from "../context";
import { type PreflightResult, resumePreflight } from "../control/preflight";
import { type ButtonClick, ownButton } from "./buttons";

/** What a release lets go, by kind, as the preflight counted it (the card after Confirm says it). */
export interface HeldToRelease {
  occurrences: number;
  events: number;
  actions: number;
}

/** Where a refused attempt to resume was made, as the audit log says it. */
const attemptedVia = (platform: Platform) => (platform === "web" ? "console Resume" : `${platform} /resume`);

/**
 * A person typing /resume (or pressing the console's Resume): the preflight, and a refusal goes to the
 * audit log, naming where it was tried (an API dry run is not an attempt to resume, so it is not written down).
 */
export async function chatPreflight(
  ctx: HandlerContext,
  user: KnownUser,
  agent: KnownAgent,
  platform: Platform,
): Promise<PreflightResult> {
  const preflight = await resumePreflight(ctx, { user, agent });
  if (preflight.kind !== "ready") {
    await recordRefusal(ctx.store.db, agentScope(agent.id), {
      action: "resume",
      actorId: user.id,
      outcome: preflight.kind,
      reason: attemptedVia(platform),
      holdLevel: preflight.control.holdLevel,
    });
  }
  return preflight;
}

export const newResumeTokens = () => ({ confirm: newButtonId(), override: newButtonId(), cancel: newButtonId() });

/**
 * Stores Confirm and Cancel for a preflight card. The payload keeps the card as shown (the settled card keeps
 * what the resumer saw), the control record's version it was read at (design.md section 4: a used or outdated
 * card is stale), and the held counts it showed, which the card says were released after Confirm.
 */
export async function bindResumeCard(
  ctx: HandlerContext,
  bound: {
    user: KnownUser;
    agent: KnownAgent;
    tokens: { confirm: string; override: string; cancel: string };
    card: unknown;
    preflight: Extract<PreflightResult, { kind: "ready" }>;
  },
): Promise<void> {
  const { user, agent, tokens, card, preflight } = bound;
  const { occurrences, inboundEvents, outboxActions } = preflight.held;
  const held: HeldToRelease = { occurrences, events: inboundEvents, actions: outboxActions };
  const payload = { card, controlVersion: preflight.controlVersion, confirmToken: tokens.confirm, held };
  const base = { tenantId: user.tenantId, agentId: agent.id, requestedBy: user.id, payload };
  await createChatButtons(ctx.store.db, [
    { ...base, id: tokens.confirm, action: "resume.confirm" },
    // "Resume anyway" resumes at the same version as Confirm, so one of them at most takes effect.
    { ...base, id: tokens.override, action: "resume.override" },
    { ...base, id: tokens.cancel, action: "resume.cancel" },
  ]);
}

/** The caller's Confirm or Cancel and the agent it is for, or null when the button is unknown to them. */
export async function resumeButton(
  ctx: HandlerContext,
  user: KnownUser,
  click: ButtonClick,
): Promise<{ button: StoredButton; agent: KnownAgent } | null> {
  const button = await ownButton(ctx, user, click);
  if (!button?.agentId) return null;
  const agent = await findAgentById(ctx.store.db, button.agentId);
  return agent ? { button, agent } : null;
}

export const personName = async (ctx: HandlerContext, userId: string | null): Promise<string | undefined> =>
  (await userName(ctx.store.db, userId)) ?? undefined;

/** A cancelled card is used: its Confirm, clicked or re-sent later, resumes nothing. */
export async function cancelResumeCard(ctx: HandlerContext, cancel: StoredButton): Promise<void> {
  const token = cancel.payload.confirmToken;
  const confirm = typeof token === "string" ? await findChatButton(ctx.store, token) : null;
  if (confirm) await replaceChatButtonPayload(ctx.store.db, confirm.id, { ...confirm.payload, cancelled: true });
}

/** The held counts the card's preflight showed; a card bound before they were kept is counted now. */
export async function heldShown(ctx: HandlerContext, button: StoredButton, agent: KnownAgent): Promise<HeldToRelease> {
  const held = button.payload.held as HeldToRelease | undefined;
  if (held) return held;
  const now = await countHeldWork(ctx.store, agent.id);
  return { occurrences: now.occurrences, events: now.inboundEvents, actions: now.outboxActions };
}

/** Keeps the footer of a card whose Confirm resumed the agent on its button, for a repeated click. */
export async function keepResumedFooter(ctx: HandlerContext, button: StoredButton, footer: string): Promise<void> {
  await replaceChatButtonPayload(ctx.store.db, button.id, { ...button.payload, resumedFooter: footer });
}

/** The latest resume of the agent since the card was posted: who (null: the scheduler) and when. */
export async function resumedSinceCard(
  ctx: HandlerContext,
  button: StoredButton,
  agent: KnownAgent,
): Promise<{ by: string | null; at: Date } | null> {
  const resume = await lastResumeSince(ctx.store.db, agentScope(agent.id), button.createdAt);
  return resume ? { by: await userName(ctx.store.db, resume.actorId), at: resume.at } : null;
}
