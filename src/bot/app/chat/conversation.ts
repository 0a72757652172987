import { agentId } from "../../../policy/ids";
import type { SigningKeys } from "../../../queue/delivery/http-transport";
import { rememberChatChannel } from "../../../store/chat/buttons";
import type { KnownAgent, KnownUser } from "../../../store/directory/directory";
import { agentPoster } from "../agent-webhook";
import type { HandlerContext } from "../context";

/** A person's message as the chat surface received it (its ChatMessage has this shape). */
export interface ForwardedMessage {
  messageId: string;
  channelId: string;
  isDirect: boolean;
  actor: { platform: "slack" | "discord" | "telegram" | "web" };
}

/** Why a message did not reach the agent: it has no conversation destination, or it did not accept it. */
export interface ForwardRefusal {
  code: "no_conversation" | "agent_unreachable";
  agent: string;
}

/** What the agent's conversation destination receives for each human message. */
export interface ConversationEvent {
  type: "chat.message";
  tenant: string;
  agent: string;
  platform: ForwardedMessage["actor"]["platform"];
  /** Reply with POST /v1/agents/:agent/messages { platform, channel, text }. */
  channel: string;
  messageId: string;
  user: string;
  text: string;
  isDirect: boolean;
  receivedAt: string;
}

/** Posts one event to the agent; true when the agent accepted it (2xx). Injectable for other transports. */
export type ConversationPoster = (url: string, event: ConversationEvent, idempotencyKey: string) => Promise<boolean>;

const TIMEOUT_MS = 5_000;

/** Posts signed like every delivery (agent-webhook.ts). */
export function conversationPoster(signing: SigningKeys): ConversationPoster {
  const post = agentPoster(signing);
  return async (url, event, idempotencyKey) => {
    const signer = { agentId: agentId(event.tenant, event.agent), webhookId: idempotencyKey };
    const { status } = await post(url, signer, JSON.stringify(event), TIMEOUT_MS);
    return status >= 200 && status < 300;
  };
}

export const postConversationEvent: ConversationPoster = conversationPoster(new Map());

/**
 * Human conversation is never held (design.md section 4): this path does not consult the pause gate.
 * The platform's message id, scoped by channel (Telegram and Slack ids are only unique per chat), is the
 * Idempotency-Key, so a platform's redelivery of the same message is recognisable by the agent.
 */
export async function forwardToAgent(
  ctx: HandlerContext,
  post: ConversationPoster,
  target: { user: KnownUser; agent: KnownAgent; text: string },
  message: ForwardedMessage,
): Promise<ForwardRefusal | null> {
  const { user, agent, text } = target;
  if (!agent.webhook) return { code: "no_conversation", agent: agent.name };
  const platform = message.actor.platform;
  await rememberChatChannel(ctx.store.db, agent.id, platform, message.channelId, ctx.now());
  const event: ConversationEvent = {
    type: "chat.message",
    tenant: user.tenantId,
    agent: agent.name,
    platform,
    channel: message.channelId,
    messageId: message.messageId,
    user: user.name,
    text,
    isDirect: message.isDirect,
    receivedAt: ctx.now().toISOString(),
  };
  const key = `${platform}:${message.channelId}:${message.messageId}`;
  const accepted = await post(agent.webhook, event, key).catch((error: Error) => {
    ctx.log.warn({ agent: agent.id, err: error.message }, "conversation delivery failed");
    return false;
  });
  return accepted ? null : { code: "agent_unreachable", agent: agent.name };
}
