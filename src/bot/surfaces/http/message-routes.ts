import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { HandlerContext } from "../../app/context";
import { spokenToIn } from "../../app/messages/agent-channels";
import type { CardPublisher, Platform } from "../chat/types";
import { ApiError } from "./errors";
import { defineRoute } from "./route";

const MessageBody = z
  .object({
    platform: z.enum(["slack", "discord", "telegram", "web"]),
    channel: z.string().min(1).max(200),
    text: z.string().trim().min(1).max(4000),
  })
  .strict();

/**
 * The agent's side of the ungated conversation: `POST /v1/agents/:agent/messages` with the agent's own key.
 * An agent may only write into conversations it was spoken to in (ChatChannel), so a leaked agent key
 * cannot post into arbitrary channels. Not gated by pause: conversation is never held.
 */
export function registerMessageRoutes(
  app: FastifyInstance,
  ctx: HandlerContext,
  publishers: Partial<Record<Platform, CardPublisher>>,
): void {
  defineRoute(
    app,
    {
      method: "POST",
      url: "/v1/agents/:agent/messages",
      summary: "The agent writes into a conversation it was spoken to in (never held)",
      auth: "agent",
      params: z.object({ agent: z.string().min(1).max(200) }),
      body: MessageBody,
      responses: { 201: "sent" },
    },
    async ({ auth: agent, params: { agent: name }, body }, _request, reply) => {
      if (agent.name !== name) throw new ApiError("not_found", `no agent '${name}'`);
      const publisher = publishers[body.platform];
      if (!publisher) throw new ApiError("not_found", `${body.platform} is not enabled`);
      if (!(await spokenToIn(ctx, agent, body.platform, body.channel))) {
        throw new ApiError("forbidden", "the agent has not been spoken to in that channel", "channel");
      }
      const sent = await publisher.say(body.channel, body.text);
      return reply.status(201).send({ platform: body.platform, channel: sent.channelId, messageId: sent.messageId });
    },
  );
}
