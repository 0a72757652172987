import { webChannel, webChannelAgent } from "../../../policy/ids";
import { addWebMessage, listWebMessages } from "../../../store/chat/web-messages";
import type { HandlerContext } from "../../app/context";
import type { KnownAgent, KnownUser } from "../../app/records";
import type { CardPublisher, ChatActor, ChatTransport } from "../chat/types";
import { when } from "../chat/words";

/** The console as a chat surface: the signed-in person is the identity web:<tenant>:<user>. */
export const webActor = (user: KnownUser): ChatActor => ({
  platform: "web",
  userId: user.name,
  workspaceId: user.tenantId,
  displayName: user.name,
});

export const webTransport: ChatTransport = {
  platform: "web",
  checkCredentials: async () => ({ ok: true, detail: "console session (no platform credentials needed)" }),
};

/**
 * Where an agent's replies to the console go (`POST /v1/agents/:agent/messages` with platform "web"): into
 * the conversation's rows, which the chat box shows. Only text; cards are shown by the console's own pages.
 */
export function webPublisher(ctx: HandlerContext): CardPublisher {
  const say = async (channelId: string, text: string) => {
    const id = await addWebMessage(ctx.store.db, {
      channelId,
      author: webChannelAgent(channelId),
      fromAgent: true,
      text,
      at: ctx.now(),
    });
    return { channelId, messageId: String(id) };
  };
  const unsupported = async (): Promise<never> => {
    throw new Error("the console shows cards on its own pages");
  };
  return { openDirect: unsupported, post: unsupported, edit: unsupported, say };
}

/** What the person typed, kept for the chat box; the id is the message id the agent sees. */
export async function recordWebMessage(ctx: HandlerContext, user: KnownUser, agent: KnownAgent, text: string) {
  const channelId = webChannel(user.id, agent.name);
  const id = await addWebMessage(ctx.store.db, { channelId, author: user.name, fromAgent: false, text, at: ctx.now() });
  return { channelId, messageId: String(id) };
}

export async function webConversation(ctx: HandlerContext, user: KnownUser, agent: KnownAgent) {
  const rows = await listWebMessages(ctx.store.db, webChannel(user.id, agent.name));
  return rows.map((r) => ({ author: r.author, fromAgent: r.fromAgent, text: r.text, at: when(r.createdAt) }));
}

/** A note from Holdfast itself in the conversation (a refusal: the agent could not be reached). */
export async function recordWebNote(ctx: HandlerContext, channelId: string, text: string) {
  await addWebMessage(ctx.store.db, { channelId, author: "Holdfast", fromAgent: false, text, at: ctx.now() });
}
