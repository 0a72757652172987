import {
  type APIActionRowComponent,
  type APIApplicationCommandInteractionDataOption,
  type APIChatInputApplicationCommandInteraction,
  type APIComponentInMessageActionRow,
  type APIEmbed,
  type APIMessage,
  type APIMessageComponentButtonInteraction,
  type APIUser,
  ApplicationCommandOptionType,
  ApplicationCommandType,
  ApplicationIntegrationType,
  ChannelType,
  ComponentType,
  InteractionContextType,
  InteractionType,
  Locale,
  MessageType,
} from "discord.js";

// Builders for what the Discord gateway/REST returns. Typed against discord-api-types (re-exported by
// discord.js) so a shape the library would choke on fails at compile time, not at runtime in a test.

export const DEFAULT_APPLICATION_ID = "1100000000000000001";
export const DEFAULT_BOT_USER_ID = "1100000000000000002";
const DEFAULT_CHANNEL_ID = "1100000000000000300";

let snowflakeCounter = 1_200_000_000_000_000_000n;
/** Monotonic ids that look like real snowflakes, since discord.js derives timestamps from them. */
export const nextSnowflake = (): string => String(++snowflakeCounter);

export function discordUser(id: string, username = `user${id.slice(-4)}`, bot = false): APIUser {
  return { id, username, discriminator: "0", global_name: bot ? null : username, avatar: null, ...(bot && { bot }) };
}

export interface MessageFields {
  id?: string;
  channelId?: string;
  content?: string;
  author?: APIUser;
  components?: APIActionRowComponent<APIComponentInMessageActionRow>[];
  embeds?: APIEmbed[];
  editedTimestamp?: string | null;
}

export function discordMessage(fields: MessageFields = {}): APIMessage {
  return {
    id: fields.id ?? nextSnowflake(),
    channel_id: fields.channelId ?? DEFAULT_CHANNEL_ID,
    type: MessageType.Default,
    content: fields.content ?? "",
    author: fields.author ?? discordUser(DEFAULT_BOT_USER_ID, "holdfast", true),
    timestamp: new Date().toISOString(),
    edited_timestamp: fields.editedTimestamp ?? null,
    tts: false,
    mention_everyone: false,
    mentions: [],
    mention_roles: [],
    attachments: [],
    embeds: fields.embeds ?? [],
    pinned: false,
    components: fields.components ?? [],
  };
}

interface InteractionFields {
  id?: string;
  token?: string;
  applicationId?: string;
  /** Present: a guild interaction (`member.user`). Absent: a DM (`user`), as Discord distinguishes them. */
  guildId?: string;
  userId?: string;
  channelId?: string;
}

function interactionBase(fields: InteractionFields) {
  const id = fields.id ?? nextSnowflake();
  const user = discordUser(fields.userId ?? "1100000000000000200", "alice");
  const channelId = fields.channelId ?? DEFAULT_CHANNEL_ID;
  const common = {
    id,
    token: fields.token ?? `token-${id}`,
    application_id: fields.applicationId ?? DEFAULT_APPLICATION_ID,
    version: 1 as const,
    app_permissions: "0",
    locale: Locale.EnglishUS,
    entitlements: [],
    attachment_size_limit: 8 * 1024 * 1024,
  };
  if (fields.guildId) {
    return {
      ...common,
      guild_id: fields.guildId,
      guild: { id: fields.guildId, locale: Locale.EnglishUS, features: [] },
      guild_locale: Locale.EnglishUS,
      channel: { id: channelId, type: ChannelType.GuildText as const, guild_id: fields.guildId, name: "ops" },
      channel_id: channelId,
      member: {
        user,
        roles: [],
        permissions: "0",
        joined_at: new Date(0).toISOString(),
        deaf: false,
        mute: false,
        flags: 0,
      },
      authorizing_integration_owners: { [ApplicationIntegrationType.GuildInstall]: fields.guildId },
      context: InteractionContextType.Guild,
    };
  }
  return {
    ...common,
    channel: { id: channelId, type: ChannelType.DM as const, recipients: [user] },
    channel_id: channelId,
    user,
    authorizing_integration_owners: { [ApplicationIntegrationType.UserInstall]: user.id },
    context: InteractionContextType.BotDM,
  };
}

export type CommandOptionValue = string | number | boolean;

export interface SlashCommandInteractionFields extends InteractionFields {
  name: string;
  commandId?: string;
  /** A plain record is typed by value (string, integer, number, boolean); pass raw options for anything else. */
  options?: Record<string, CommandOptionValue> | APIApplicationCommandInteractionDataOption[];
}

export function slashCommandInteraction(
  fields: SlashCommandInteractionFields,
): APIChatInputApplicationCommandInteraction {
  const options = Array.isArray(fields.options) ? fields.options : toOptions(fields.options ?? {});
  return {
    ...interactionBase(fields),
    type: InteractionType.ApplicationCommand,
    data: {
      id: fields.commandId ?? nextSnowflake(),
      name: fields.name,
      type: ApplicationCommandType.ChatInput,
      options,
    },
  };
}

function toOptions(record: Record<string, CommandOptionValue>): APIApplicationCommandInteractionDataOption[] {
  return Object.entries(record).map(([name, value]): APIApplicationCommandInteractionDataOption => {
    if (typeof value === "boolean") return { name, type: ApplicationCommandOptionType.Boolean, value };
    if (typeof value === "number") {
      const type = Number.isInteger(value) ? ApplicationCommandOptionType.Integer : ApplicationCommandOptionType.Number;
      return { name, type, value };
    }
    return { name, type: ApplicationCommandOptionType.String, value };
  });
}

export interface ButtonInteractionFields extends InteractionFields {
  customId: string;
  /** The message carrying the button; defaults to a bot message in the interaction's channel. */
  message?: APIMessage;
}

export function buttonInteraction(fields: ButtonInteractionFields): APIMessageComponentButtonInteraction {
  const base = interactionBase(fields);
  return {
    ...base,
    type: InteractionType.MessageComponent,
    data: { custom_id: fields.customId, component_type: ComponentType.Button },
    message: fields.message ?? discordMessage({ channelId: base.channel_id }),
  };
}
