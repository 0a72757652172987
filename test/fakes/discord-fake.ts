import { ChannelType, InteractionResponseType, InteractionType } from "discord.js";
import { startFakeGateway } from "./discord-gateway";
import {
  DEFAULT_APPLICATION_ID,
  DEFAULT_BOT_USER_ID,
  discordMessage,
  discordUser,
  type MessageFields,
  nextSnowflake,
} from "./discord-payloads";
import { type FakeResponse, type RecordedCall, type RecordingServer, startRecordingServer } from "./recording-http";

export type { FakeGateway, GatewayPayload } from "./discord-gateway";
export * from "./discord-payloads";
export * from "./discord-signing";

// Fake of Discord's REST API (v10) plus a gateway. `apiUrl` is what discord.js takes as `rest.api`.

export interface DiscordFakeOptions {
  applicationId?: string;
  botUserId?: string;
}

export interface DiscordFake extends RecordingServer {
  /** Pass as `rest.api` together with `version: "10"`. Equals `url + "/api"`. */
  apiUrl: string;
  gatewayUrl: string;
  /** Gateway payloads clients sent (IDENTIFY, heartbeats). */
  gatewayReceived: Array<{ op: number; d: unknown }>;
  /** Resolves once a client identified on the gateway and got READY. */
  ready: Promise<void>;
  /** Sends a dispatch (op 0) to every identified client, e.g. dispatch("INTERACTION_CREATE", payload). */
  dispatch(event: string, data: unknown): void;
  /** Result of the last bulk overwrite of global commands. */
  readonly globalCommands: unknown[];
  /** Result of the last bulk overwrite per guild id. */
  guildCommands: Map<string, unknown[]>;
}

type Params = Record<string, string>;
type RouteHandler = (call: RecordedCall, params: Params) => FakeResponse;

export async function startDiscordFake(options: DiscordFakeOptions = {}): Promise<DiscordFake> {
  const applicationId = options.applicationId ?? DEFAULT_APPLICATION_ID;
  const botUser = discordUser(options.botUserId ?? DEFAULT_BOT_USER_ID, "holdfast", true);
  const gateway = await startFakeGateway(applicationId, botUser.id);
  let globalCommands: unknown[] = [];
  const guildCommands = new Map<string, unknown[]>();
  // One stable DM channel per user: Discord returns the same channel on every open.
  const dmChannels = new Map<string, string>();

  const botMessage = (fields: MessageFields | undefined, channelId?: string, id?: string) =>
    discordMessage({ ...pickMessageFields(fields), channelId, id, author: botUser });
  const edited = (fields: MessageFields | undefined, channelId: string | undefined, id: string) => ({
    ...botMessage(fields, channelId, id),
    edited_timestamp: new Date().toISOString(),
  });

  const overwriteCommands = (call: RecordedCall, guildId?: string) =>
    ((call.json ?? []) as Array<Record<string, unknown>>).map((command) => ({
      id: nextSnowflake(),
      application_id: applicationId,
      version: nextSnowflake(),
      type: 1,
      default_member_permissions: null,
      ...(guildId && { guild_id: guildId }),
      ...command,
    }));

  const interactionCallback = (call: RecordedCall, interactionId: string): FakeResponse => {
    // discord.js always sends ?with_response=; only "true" expects a body, anything else must be a bare 204.
    if (call.query.with_response !== "true") return { status: 204 };
    const { type, data } = (call.json ?? {}) as { type?: number; data?: MessageFields };
    const carriesMessage =
      type === InteractionResponseType.ChannelMessageWithSource || type === InteractionResponseType.UpdateMessage;
    const reply = botMessage(data);
    return {
      body: {
        // The fake does not know the original interaction's type; discord.js only stores it.
        interaction: {
          id: interactionId,
          type: InteractionType.ApplicationCommand,
          response_message_id: carriesMessage ? reply.id : undefined,
          response_message_loading: type === InteractionResponseType.DeferredChannelMessageWithSource,
          response_message_ephemeral: false,
        },
        resource: { type, ...(carriesMessage && { message: reply }) },
      },
    };
  };

  const routes = compileRoutes({
    "GET /gateway/bot": () => ({ body: gatewayBot(gateway.url) }),
    "GET /gateway": () => ({ body: { url: gateway.url } }),
    "GET /users/@me": () => ({ body: botUser }),
    "GET /users/:user": (_call, { user }) => ({ body: discordUser(user!) }),
    "POST /users/@me/channels": (call) => {
      const recipient = String((call.json as { recipient_id?: string } | undefined)?.recipient_id);
      const id = dmChannels.get(recipient) ?? nextSnowflake();
      dmChannels.set(recipient, id);
      return { body: { id, type: ChannelType.DM, last_message_id: null, recipients: [discordUser(recipient)] } };
    },
    "GET /applications/:app/commands": () => ({ body: globalCommands }),
    "PUT /applications/:app/commands": (call) => {
      globalCommands = overwriteCommands(call);
      return { body: globalCommands };
    },
    "PUT /applications/:app/guilds/:guild/commands": (call, { guild }) => {
      const commands = overwriteCommands(call, guild);
      guildCommands.set(guild!, commands);
      return { body: commands };
    },
    "POST /interactions/:interaction/:token/callback": (call, { interaction }) =>
      interactionCallback(call, interaction!),
    // Follow-ups and edits of the original reply (`@original`) go through the app's webhook.
    "POST /webhooks/:app/:token": (call) => ({ body: botMessage(call.json as MessageFields) }),
    "GET /webhooks/:app/:token/messages/:message": (_call, { message }) => ({
      body: botMessage(undefined, undefined, snowflakeOr(message)),
    }),
    "PATCH /webhooks/:app/:token/messages/:message": (call, { message }) => ({
      body: edited(call.json as MessageFields, undefined, snowflakeOr(message)),
    }),
    "DELETE /webhooks/:app/:token/messages/:message": () => ({ status: 204 }),
    "POST /channels/:channel/messages": (call, { channel }) => ({
      body: botMessage(call.json as MessageFields, channel),
    }),
    "PATCH /channels/:channel/messages/:message": (call, { channel, message }) => ({
      body: edited(call.json as MessageFields, channel, message!),
    }),
  });

  const rest = await startRecordingServer((call) => {
    const path = call.path.replace(/^\/api\/v10(?=\/)/, "");
    if (path === call.path) return undefined;
    for (const route of routes) {
      const params = route.method === call.method ? route.match(path) : undefined;
      if (params) return route.handle(call, params);
    }
    // discord.js turns this shape into a DiscordAPIError with a readable message.
    return { status: 404, body: { message: `404: Not Found (fake has no ${call.method} ${path})`, code: 0 } };
  });

  return {
    ...rest,
    apiUrl: `${rest.url}/api`,
    gatewayUrl: gateway.url,
    gatewayReceived: gateway.received,
    ready: gateway.ready,
    dispatch: gateway.dispatch,
    get globalCommands() {
      return globalCommands;
    },
    guildCommands,
    async close() {
      await gateway.close();
      await rest.close();
    },
  };
}

/** "METHOD /path/:param" keys read like Discord's docs; literal segments (e.g. `@me`) win by coming first. */
function compileRoutes(table: Record<string, RouteHandler>) {
  return Object.entries(table).map(([key, handle]) => {
    const [method, template = ""] = key.split(" ");
    const names: string[] = [];
    const pattern = new RegExp(
      `^${template.replace(/:(\w+)/g, (_, name: string) => {
        names.push(name);
        return "([^/]+)";
      })}$`,
    );
    const match = (path: string): Params | undefined => {
      const found = pattern.exec(path);
      return found ? Object.fromEntries(names.map((name, i) => [name, found[i + 1] ?? ""])) : undefined;
    };
    return { method, match, handle };
  });
}

function pickMessageFields(fields: MessageFields | undefined): MessageFields {
  // Request bodies carry many other keys (flags, allowed_mentions, ...) that are not message fields.
  const { content, components, embeds } = fields ?? {};
  return { content, components, embeds };
}

function gatewayBot(url: string) {
  return {
    url,
    shards: 1,
    session_start_limit: { total: 1000, remaining: 1000, reset_after: 0, max_concurrency: 1 },
  };
}

/** `@original` addresses the interaction's first reply, whose id the fake never assigned; make one up. */
function snowflakeOr(id: string | undefined) {
  return id && /^\d+$/.test(id) ? id : nextSnowflake();
}
