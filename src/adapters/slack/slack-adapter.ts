import { App, type BlockAction, type ButtonAction, LogLevel, SocketModeReceiver } from "@slack/bolt";
import type { WebClient } from "@slack/web-api";
import type {
  CardPublisher,
  ChatActor,
  ChatAdapter,
  ChatLog,
  ChatRouter,
  ChatTransport,
  CommandName,
} from "../../bot/surfaces/chat/types";
import { COMMAND_NAMES, parseButtonValue } from "../../bot/surfaces/chat/types";
import { registerSlackMessages } from "./messages";
import { RouteReceiver } from "./receiver";
import { cardBlocks, escapeSlack } from "./render";

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
  const routeReceiver = new RouteReceiver(options.signingSecret, options.log);
  const receiver = options.appToken
    ? new SocketModeReceiver({ appToken: options.appToken, installerOptions: { clientOptions } })
    : routeReceiver;
  const app = new App({ token: options.botToken, receiver, clientOptions, logLevel: LogLevel.ERROR });
  const publisher = slackPublisher(app.client);
  const transport: ChatTransport = {
    platform: "slack",
    async checkCredentials() {
      const auth = await app.client.auth.test();
      return { ok: auth.ok === true, detail: `auth.test ok (team ${auth.team_id})` };
    },
  };
  const { router } = options;

  const commandPattern = new RegExp(`^/(${COMMAND_NAMES.join("|")})$`);
  app.command(commandPattern, async ({ command, ack, respond }) => {
    // Ack at once; the answer follows through response_url, so a slow database never breaks Slack's 3 s.
    await ack();
    const actor: ChatActor = { platform: "slack", userId: command.user_id, workspaceId: command.team_id };
    const name = command.command.slice(1) as CommandName;
    const reply = await router.command({ name, text: command.text, actor, channelId: command.channel_id }, transport);
    if (reply.kind === "text") {
      await respond({ response_type: reply.ephemeral ? "ephemeral" : "in_channel", text: escapeSlack(reply.text) });
      return;
    }
    // A bot that is not a member of the channel cannot post there (not_in_channel); the card then goes to
    // the caller alone through response_url, and clicks on it are answered through their own response_url.
    await publisher
      .post(command.channel_id, reply.card)
      .catch(() => respond({ response_type: "ephemeral", ...cardBlocks(reply.card) }));
  });

  /** A button click as the neutral interaction; null for clicks that are not ours. */
  const clickOf = (body: BlockAction<ButtonAction>, action: ButtonAction) => {
    const parsed = parseButtonValue(`${action.action_id}:${action.value ?? ""}`);
    const channelId = body.channel?.id ?? body.container?.channel_id;
    const messageId = body.message?.ts ?? body.container?.message_ts;
    if (!parsed || !channelId || !messageId) return null;
    const actor: ChatActor = {
      platform: "slack",
      userId: body.user.id,
      workspaceId: body.user.team_id ?? body.team?.id,
    };
    // trigger_id is Slack's id for this one click (a re-sent payload carries the same); action_ts pins the
    // button within it. The message ts would name the card, not the click.
    const interactionId = `${body.trigger_id}:${action.action_ts}`;
    return { interactionId, ...parsed, actor, card: { channelId, messageId } };
  };

  app.action<BlockAction<ButtonAction>>(/^resume\./, async ({ ack, body, action, respond }) => {
    await ack();
    const click = clickOf(body, action);
    if (!click) return;
    const result = await router.interaction(click, transport);
    const settled = result.card;
    if (settled) {
      await publisher
        .edit(click.card, settled)
        .catch(() => respond({ replace_original: true, ...cardBlocks(settled) }));
    }
    await respond({ response_type: "ephemeral", replace_original: false, text: escapeSlack(result.note) });
  });

  // Approve/Deny: the receiver has already acked (RouteReceiver.ackThenProcess). Deciding before the ack was measured:
  // with 500 clicks at once on SQLite the acks then took up to 3.8 s, past Slack's 3 s. The decision is
  // durable once made; the clicker's note follows through response_url and every card is edited by the sync.
  // Escalation buttons answer with a note; an Open (url) button needs only the ack.
  app.action<BlockAction<ButtonAction>>(/^(run\.|escalation\.|link-)/, async ({ ack, body, action, respond }) => {
    await ack();
    const click = clickOf(body, action);
    if (!click) return;
    const result = await router.interaction(click, transport);
    await respond({ response_type: "ephemeral", replace_original: false, text: escapeSlack(result.note) });
  });

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
