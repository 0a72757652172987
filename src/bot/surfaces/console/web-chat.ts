import { addAgentMessage, conversationOf } from "../../app/console/web-messages";
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
  const say = async (channelId: string, text: string) => ({
    channelId,
    messageId: await addAgentMessage(ctx, channelId, text),
  });
  const unsupported = async (): Promise<never> => {
    throw new Error("the console shows cards on its own pages");
  };
  return { openDirect: unsupported, post: unsupported, edit: unsupported, say };
}

export async function webConversation(ctx: HandlerContext, user: KnownUser, agent: KnownAgent) {
  const rows = await conversationOf(ctx, user, agent);
  return rows.map((r) => ({ author: r.author, fromAgent: r.fromAgent, text: r.text, at: when(r.createdAt) }));
}
