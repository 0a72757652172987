import { webChannel, webChannelAgent } from "../../../policy/ids";
import { addWebMessage, listWebMessages, type WebMessageRow } from "../../../store/chat/web-messages";
import type { KnownAgent, KnownUser } from "../../../store/directory/directory";
import type { HandlerContext } from "../context";

// The console's chat box: one conversation per person and agent (`web:<user>:<agent>`), kept in the database so
// every process shows the same one.

/** What the person typed; the id is the message id the agent sees. */
export async function addPersonMessage(ctx: HandlerContext, user: KnownUser, agent: KnownAgent, text: string) {
  const channelId = webChannel(user.id, agent.name);
  const id = await addWebMessage(ctx.store.db, { channelId, author: user.name, fromAgent: false, text, at: ctx.now() });
  return { channelId, messageId: String(id) };
}

/** The agent's reply into a conversation (`POST /v1/agents/:agent/messages` with platform "web"). */
export async function addAgentMessage(ctx: HandlerContext, channelId: string, text: string): Promise<string> {
  const author = webChannelAgent(channelId);
  return String(await addWebMessage(ctx.store.db, { channelId, author, fromAgent: true, text, at: ctx.now() }));
}

/** A note from Holdfast itself in the conversation (a refusal: the agent could not be reached). */
export async function addHoldfastNote(ctx: HandlerContext, channelId: string, text: string): Promise<void> {
  await addWebMessage(ctx.store.db, { channelId, author: "Holdfast", fromAgent: false, text, at: ctx.now() });
}

/** The latest messages of a person's conversation with an agent, oldest first. */
export const conversationOf = (ctx: HandlerContext, user: KnownUser, agent: KnownAgent): Promise<WebMessageRow[]> =>
  listWebMessages(ctx.store.db, webChannel(user.id, agent.name));
