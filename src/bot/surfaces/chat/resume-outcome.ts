import { agentScope } from "../../../policy/ids";
import { replaceChatButtonPayload, type StoredButton } from "../../../store/chat/buttons";
import { lastResumeSince } from "../../../store/control/audit";
import { type KnownAgent, type KnownUser, userName } from "../../../store/directory/directory";
import { countHeldWork, type HeldCounts } from "../../../store/held/counts";
import type { HandlerContext } from "../../app/context";
import { releasedWords, when } from "./words";

/** What a Confirm is about to release, counted just before the resume (every kind, not only occurrences). */
export const heldBeforeResume = (ctx: HandlerContext, agent: KnownAgent): Promise<HeldCounts> =>
  countHeldWork(ctx.store.db, agent.id);

/** The footer of a card whose Confirm resumed the agent; kept on the button for a repeated click. */
export async function resumedFooter(
  ctx: HandlerContext,
  button: StoredButton,
  user: KnownUser,
  held: HeldCounts,
): Promise<string> {
  const released = releasedWords({
    occurrences: held.occurrences,
    events: held.inboundEvents,
    actions: held.outboxActions,
  });
  const footer = `Resumed by ${user.name} at ${when(ctx.now())}; released ${released}.`;
  await replaceChatButtonPayload(ctx.store.db, button.id, { ...button.payload, resumedFooter: footer });
  return footer;
}

/**
 * The footer for a Confirm that found the agent running: the card keeps the record of who resumed it (the
 * first Confirm's footer, or, when another click won the race or it was resumed elsewhere after this card
 * was posted, the audit log's resume), and only without either says it is already running.
 */
export async function alreadyRunningFooter(
  ctx: HandlerContext,
  button: StoredButton,
  agent: KnownAgent,
): Promise<string> {
  const kept = button.payload.resumedFooter;
  if (typeof kept === "string") return kept;
  return (await resumedSince(ctx, button, agent)) ?? `Already running at ${when(ctx.now())}.`;
}

/**
 * The footer of an outdated card settled because nothing is paused any more: it resumed nothing, and it
 * still says who resumed the agent after it was posted (another card, the API or the scheduler).
 */
export async function outOfDateFooter(ctx: HandlerContext, button: StoredButton, agent: KnownAgent): Promise<string> {
  const head = `Out of date at ${when(ctx.now())}: nothing was resumed.`;
  const resumed = await resumedSince(ctx, button, agent);
  return resumed ? `${head} ${resumed}` : head;
}

/** "Resumed by <who> at <when>." for the latest resume since the card was posted, or null. */
async function resumedSince(ctx: HandlerContext, button: StoredButton, agent: KnownAgent): Promise<string | null> {
  const resume = await lastResumeSince(ctx.store.db, agentScope(agent.id), button.createdAt);
  if (!resume) return null;
  return `Resumed by ${(await userName(ctx.store.db, resume.actorId)) ?? "the scheduler"} at ${when(resume.at)}.`;
}
