import { isKnownChatChannel } from "../../../store/chat/buttons";
import type { KnownAgent } from "../../../store/directory/directory";
import type { HandlerContext } from "../context";

/**
 * Whether the agent may write into this conversation: only where it was spoken to (a ChatChannel row), so a
 * leaked agent key cannot post into arbitrary channels.
 */
export const spokenToIn = (ctx: HandlerContext, agent: KnownAgent, platform: string, channelId: string) =>
  isKnownChatChannel(ctx.store.db, agent.id, platform, channelId);
