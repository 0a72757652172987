import { App, LogLevel, SocketModeReceiver } from "@slack/bolt";
import type { WebClient } from "@slack/web-api";
import type { CardPublisher, ChatAdapter, ChatLog, ChatRouter, ChatTransport } from "../../bot/surfaces/chat/types";
import { registerSlackButtons } from "./buttons";
import { registerSlackCommands } from "./commands";
import { registerSlackMessages } from "./messages";
import { RouteReceiver } from "./receiver";
import { cardBlocks, escapeSlack } from "./render";
import { slackResponder } from "./responder";

export interface SlackAdapterOptions {
  botToken: string;
  signingSecret: string;
  /** Web API base, with the trailing slash. Default https://slack.com/api/. */
  apiUrl?: string;
  /** Present: Socket Mode instead of `POST /slack/events`. */
  appToken?: string;
  router: ChatRouter;
  log: ChatLog;
}

export function createSlackAdapter(options: SlackAdapterOptions): ChatAdapter {
  const clientOptions = { slackApiUrl: options.apiUrl ?? "https://slack.com/api/", retryConfig: { retries: 0 } };
  const responder = slackResponder(clientOptions.slackApiUrl, options.log);
  const routeReceiver = new RouteReceiver(options.signingSecret, options.log);
  const receiver = options.appToken
    ? new SocketModeReceiver({ appToken: options.appToken, installerOptions: { clientOptions } })
    : routeReceiver;
  // No conversation store: nothing here keeps state in Bolt's conversation context, and its middleware (a store
  // read and a context function per event) was 15 of 40 µs of Bolt's work per click, measured alone.
  const app = new App({
    token: options.botToken,
    receiver,
    clientOptions,
    logLevel: LogLevel.ERROR,
    convoStore: false,
  });
  const publisher = slackPublisher(app.client);
  const transport: ChatTransport = {
    platform: "slack",
    async checkCredentials() {
      const auth = await app.client.auth.test();
      return { ok: auth.ok === true, detail: `auth.test ok (team ${auth.team_id})` };
    },
  };
  const { router } = options;
  registerSlackCommands(app, router, transport, publisher, responder.respond);
  registerSlackButtons(app, router, transport, publisher, responder.respond);
  registerSlackMessages(app, router, transport);

  return {
    platform: "slack",
    publisher,
    routes: options.appToken ? [] : [{ path: "/slack/events", handle: (request) => routeReceiver.handle(request) }],
    async start() {
      await app.start();
    },
    async stop() {
      await app.stop();
      await responder.close();
    },
  };
}

function slackPublisher(client: WebClient): CardPublisher {
  return {
    async openDirect(userId) {
      const opened = await client.conversations.open({ users: userId });
      return opened.channel!.id!;
    },
    async post(channelId, card) {
      const sent = await client.chat.postMessage({ channel: channelId, ...cardBlocks(card) });
      return { channelId: sent.channel ?? channelId, messageId: sent.ts! };
    },
    async edit(ref, card) {
      await client.chat.update({ channel: ref.channelId, ts: ref.messageId, ...cardBlocks(card) });
    },
    async say(channelId, text) {
      const sent = await client.chat.postMessage({ channel: channelId, text: escapeSlack(text) });
      return { channelId: sent.channel ?? channelId, messageId: sent.ts! };
    },
  };
}
