import type { FastifyInstance } from "fastify";
import type { KnownUser } from "../../store/directory/directory";
import type { ConversationPoster } from "../app/chat/conversation";
import type { HandlerContext } from "../app/context";
import { type CardSync, startCardSync } from "../surfaces/chat/card-sync";
import { createChatRouter } from "../surfaces/chat/router";
import type { CardPublisher, ChatAdapter, ChatRouter, Platform, RawHttpRoute } from "../surfaces/chat/types";
import { webPublisher } from "../surfaces/console/web-chat";
import { registerMessageRoutes } from "../surfaces/http/message-routes";
import { secretFromEnv } from "./config/secrets";
import { react } from "./reactions";

export interface ChatWiringOptions {
  /** The process environment (a parameter, so tests pass their own). */
  env: NodeJS.ProcessEnv;
  ctx: HandlerContext;
  /** The main server; webhook routes are added to it, so call this before it listens. */
  http: FastifyInstance;
  postConversation?: ConversationPoster;
  /** Makes a one-time console sign-in link for `/console` (the console's session module). */
  consoleLink?: (user: KnownUser) => Promise<string>;
}

export interface ChatWiring {
  enabled: Platform[];
  /** The one router every surface calls (the console's resume, chat box and card buttons too). */
  router: ChatRouter;
  publishers: Partial<Record<Platform, CardPublisher>>;
  /** Keeps approval cards in step with their runs (driven by `run.changed`). */
  cards: CardSync;
  stop(): Promise<void>;
}

/**
 * A platform is enabled when its credentials are in the environment (each also as NAME_FILE). Each adapter, and
 * so its chat library, is loaded only then: the three libraries held about 80 MB of an idle bot that used none.
 */
export async function chatAdaptersFromEnv(
  env: NodeJS.ProcessEnv,
  router: ChatRouter,
  ctx: HandlerContext,
): Promise<ChatAdapter[]> {
  const secret = (name: string) => secretFromEnv(env, name);
  const log = ctx.log;
  const adapters: ChatAdapter[] = [];
  const slackToken = secret("SLACK_BOT_TOKEN");
  const signingSecret = secret("SLACK_SIGNING_SECRET");
  const appToken = secret("SLACK_APP_TOKEN");
  if (slackToken && (signingSecret || appToken)) {
    const { createSlackAdapter } = await import("../../adapters/slack/slack-adapter");
    adapters.push(
      createSlackAdapter({
        botToken: slackToken,
        signingSecret: signingSecret ?? "",
        apiUrl: env.SLACK_API_URL,
        appToken,
        router,
        log,
      }),
    );
  } else if (slackToken) log.warn({}, "SLACK_BOT_TOKEN is set without SLACK_SIGNING_SECRET: Slack stays off");
  const discordToken = secret("DISCORD_TOKEN");
  if (discordToken && env.DISCORD_APPLICATION_ID) {
    const { createDiscordAdapter } = await import("../../adapters/discord/discord-adapter");
    adapters.push(
      createDiscordAdapter({
        token: discordToken,
        applicationId: env.DISCORD_APPLICATION_ID,
        apiUrl: env.DISCORD_API_URL,
        publicKey: env.DISCORD_PUBLIC_KEY,
        router,
        log,
      }),
    );
  } else if (discordToken) log.warn({}, "DISCORD_TOKEN is set without DISCORD_APPLICATION_ID: Discord stays off");
  const telegramToken = secret("TELEGRAM_BOT_TOKEN");
  if (telegramToken) {
    const { createTelegramAdapter } = await import("../../adapters/telegram/telegram-adapter");
    const webhookSecret = secret("TELEGRAM_WEBHOOK_SECRET");
    adapters.push(
      createTelegramAdapter({ token: telegramToken, webhookSecret, apiRoot: env.TELEGRAM_API_ROOT, router, log }),
    );
  }
  return adapters;
}

/** Builds the router and the enabled adapters, mounts their webhooks and the agents' message route, starts them. */
export async function startChat(options: ChatWiringOptions): Promise<ChatWiring> {
  const { ctx, http } = options;
  const router = createChatRouter({
    ctx,
    postConversation: options.postConversation,
    consoleLink: options.consoleLink,
  });
  const adapters = await chatAdaptersFromEnv(options.env, router, ctx);
  const publishers = Object.fromEntries(adapters.map((a) => [a.platform, a.publisher]));
  mountRawRoutes(
    http,
    adapters.flatMap((a) => a.routes),
  );
  // Agents answer the console's chat box through the same route, with platform "web".
  registerMessageRoutes(http, ctx, { ...publishers, web: webPublisher(ctx) });
  const started: ChatAdapter[] = [];
  const cards = startCardSync(ctx, publishers, { yieldTo: () => router.decisionsIdle() });
  const stopReacting = react(ctx, { cards });
  const stop = async () => {
    stopReacting();
    cards.stop();
    for (const adapter of started.splice(0)) await adapter.stop().catch(() => {});
  };
  try {
    for (const adapter of adapters) {
      await adapter.start();
      started.push(adapter);
      ctx.log.info({ platform: adapter.platform }, "chat platform enabled");
    }
  } catch (error) {
    await stop();
    throw error;
  }
  // Runs that changed while the bot was down: post their missing cards and settle the stale ones.
  void cards.syncAll().catch((error: Error) => ctx.log.warn({ err: error.message }, "card sync at start failed"));
  return { enabled: adapters.map((a) => a.platform), router, publishers, cards, stop };
}

/** Webhooks need the exact bytes that were signed, so their scope keeps bodies as unparsed text. */
function mountRawRoutes(http: FastifyInstance, routes: RawHttpRoute[]): void {
  if (routes.length === 0) return;
  http.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", { parseAs: "string" }, (_request, body, done) => done(null, body));
    for (const route of routes) {
      scope.post(route.path, async (request, reply) => {
        const body = typeof request.body === "string" ? request.body : "";
        const answer = await route.handle({ body, headers: request.headers });
        reply.status(answer.status);
        if (answer.body === undefined) return reply.send();
        return typeof answer.body === "string" ? reply.type("text/plain").send(answer.body) : reply.send(answer.body);
      });
    }
  });
}
