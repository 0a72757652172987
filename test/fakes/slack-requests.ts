import { createHmac } from "node:crypto";
import type { BlockAction, ButtonAction } from "@slack/bolt";

// Builders for what Slack sends *to* the bot, so tests can drive Bolt's HTTPReceiver like Slack does.

export const FORM_CONTENT_TYPE = "application/x-www-form-urlencoded";

export interface SlackSignatureHeaders {
  "x-slack-signature": string;
  "x-slack-request-timestamp": string;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Slack's v0 scheme: Bolt rejects a mismatch, or a timestamp older than 5 minutes, with 401. */
export function signSlackRequest(secret: string, rawBody: string, timestamp = nowSeconds()): SlackSignatureHeaders {
  const digest = createHmac("sha256", secret).update(`v0:${timestamp}:${rawBody}`).digest("hex");
  return { "x-slack-signature": `v0=${digest}`, "x-slack-request-timestamp": String(timestamp) };
}

export interface SlashCommandFields {
  command: string;
  text?: string;
  user_id?: string;
  user_name?: string;
  team_id?: string;
  team_domain?: string;
  channel_id?: string;
  channel_name?: string;
  response_url: string;
  trigger_id?: string;
  api_app_id?: string;
}

/** Form-encoded body of a slash command, with the fields Slack always sends filled in. */
export function slashCommandBody(fields: SlashCommandFields): string {
  const all: Required<SlashCommandFields> & { token: string } = {
    token: "legacy-verification-token",
    text: "",
    user_id: "U0001",
    user_name: "alice",
    team_id: "T0001",
    team_domain: "holdfast-test",
    channel_id: "C0001",
    channel_name: "ops",
    trigger_id: "1000.2000.trigger",
    api_app_id: "A0001",
    ...fields,
  };
  return new URLSearchParams(all).toString();
}

export interface BlockActionsFields {
  action_id: string;
  value?: string;
  block_id?: string;
  /** Button label; Slack echoes it back in the action. */
  label?: string;
  response_url: string;
  user?: { id: string; username?: string; team_id?: string };
  team?: { id: string; domain?: string };
  /** The message holding the button. `null` for clicks outside messages (then pass `container`). */
  message?: { ts: string; channel: string; text?: string } | null;
  container?: Record<string, unknown>;
  trigger_id?: string;
  api_app_id?: string;
}

/** A button click as Slack posts it (see docs.slack.dev "block_actions payload"). */
export function blockActionsPayload(fields: BlockActionsFields): BlockAction<ButtonAction> {
  const user = { id: "U0001", username: "alice", team_id: fields.team?.id ?? "T0001", ...fields.user };
  const team = { id: "T0001", domain: "holdfast-test", ...fields.team };
  const message = fields.message === undefined ? { ts: "1700000000.000100", channel: "C0001" } : fields.message;
  const container =
    fields.container ??
    (message
      ? { type: "message", message_ts: message.ts, channel_id: message.channel, is_ephemeral: false }
      : { type: "view", view_id: "V0001" });
  return {
    type: "block_actions",
    user: { ...user, name: user.username },
    api_app_id: fields.api_app_id ?? "A0001",
    token: "legacy-verification-token",
    container,
    trigger_id: fields.trigger_id ?? "1000.2001.trigger",
    team,
    is_enterprise_install: false,
    ...(message && {
      channel: { id: message.channel, name: "ops" },
      message: {
        type: "message" as const,
        ts: message.ts,
        text: message.text ?? "",
        user: "UBOT0001",
        bot_id: "BBOT0001",
      },
    }),
    state: { values: {} },
    response_url: fields.response_url,
    actions: [
      {
        type: "button",
        action_id: fields.action_id,
        block_id: fields.block_id ?? "actions",
        text: { type: "plain_text", text: fields.label ?? fields.action_id, emoji: true },
        ...(fields.value !== undefined && { value: fields.value }),
        action_ts: `${nowSeconds()}.000001`,
      },
    ],
  };
}

/** Interactive payloads travel as a single form field `payload` holding JSON. */
export function blockActionsBody(fields: BlockActionsFields): string {
  return new URLSearchParams({ payload: JSON.stringify(blockActionsPayload(fields)) }).toString();
}

export interface PostSignedOptions {
  timestamp?: number;
  /** Applied after signing, e.g. to send a forged `x-slack-signature`. */
  headers?: Record<string, string>;
}

export function postSigned(
  url: string,
  body: string,
  secret: string,
  contentType = FORM_CONTENT_TYPE,
  options: PostSignedOptions = {},
): Promise<Response> {
  const headers = {
    "content-type": contentType,
    ...signSlackRequest(secret, body, options.timestamp),
    ...options.headers,
  };
  return fetch(url, { method: "POST", headers, body });
}
