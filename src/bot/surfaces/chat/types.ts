// The neutral chat vocabulary. Adapters translate platform payloads into these and render Cards back;
// everything with a rule in it works on these types only.

export type { Platform } from "../../../policy/platforms";
/** Every renderer shows invisible characters the same way (adapters reach policy through this seam only). */
export { visibleText } from "../../../policy/visible-text";

import type { Platform } from "../../../policy/platforms";

/** Who typed or clicked, as the platform authenticated them. The router maps this to a directory user. */
export interface ChatActor {
  platform: Platform;
  userId: string;
  /** Slack team id or Discord guild id; absent for Telegram and for Discord DMs. */
  workspaceId?: string;
  displayName?: string;
}

/** Where a message lives, so it can be answered or edited. */
export interface ChatRef {
  channelId: string;
  messageId: string;
}

export type CommandName = "pause" | "resume" | "status" | "approvals" | "console" | "escalations" | "maintenance";
export const COMMAND_NAMES: readonly CommandName[] = [
  "pause",
  "resume",
  "status",
  "approvals",
  "console",
  "escalations",
  "maintenance",
];

export interface ChatCommand {
  name: CommandName;
  /** Everything after the command, e.g. "ops-agent vacation until 2026-12-14". */
  text: string;
  actor: ChatActor;
  channelId: string;
}

/** Button actions. A button carries "<action>:<token>", the token naming a stored ChatButton. */
export type ButtonAction =
  | "resume.confirm"
  | "resume.override"
  | "resume.cancel"
  | "run.approve"
  | "run.deny"
  | "escalation.ack"
  | "escalation.takeover";
export const BUTTON_ACTIONS: readonly ButtonAction[] = [
  "resume.confirm",
  "resume.override",
  "resume.cancel",
  "run.approve",
  "run.deny",
  "escalation.ack",
  "escalation.takeover",
];

export interface ChatInteraction {
  /** The platform's own id for this click (design.md section 5: the decision's event id). */
  interactionId: string;
  action: ButtonAction;
  token: string;
  actor: ChatActor;
  /** The card that was clicked. */
  card: ChatRef;
  /** What the person typed beside "Resume anyway" (the console's field); chat buttons carry none. */
  reason?: string;
}

/** A plain message to the bot: a DM or a mention. Never held, even while the agent is paused. */
export interface ChatMessage {
  messageId: string;
  channelId: string;
  text: string;
  actor: ChatActor;
  isDirect: boolean;
  /** The agent, when the surface names it itself (the console's chat box is on one agent's page). */
  agentName?: string;
}

export type ButtonStyle = "primary" | "danger" | "default";

export interface CardButton {
  label: string;
  action: ButtonAction;
  token: string;
  style: ButtonStyle;
}

/** A button that opens a URL (built by Holdfast from HOLDFAST_PUBLIC_URL, never from agent text). */
export interface CardLink {
  label: string;
  url: string;
}

export interface Card {
  title: string;
  lines: string[];
  fields: Array<{ label: string; value: string }>;
  buttons: CardButton[];
  /** Shown next to the buttons; a settled card has neither. */
  links?: CardLink[];
  /** Shown once the card is settled (e.g. "Resumed by alice at ..."); a resolved card has no buttons. */
  footer?: string;
}

export type Reply = { kind: "text"; text: string; ephemeral: boolean } | { kind: "card"; card: Card };

/** What a click leads to: a short note to the clicker, and possibly a new look for the clicked card. */
export interface InteractionResult {
  note: string;
  /** Replace the clicked card with this one (buttons removed when resolved). */
  card?: Card;
}

/** How an adapter posts and edits cards: the resume preflight and the approval cards. */
export interface CardPublisher {
  /** The channel of a direct conversation with this platform user (opened if needed). */
  openDirect(platformUserId: string): Promise<string>;
  post(channelId: string, card: Card): Promise<ChatRef>;
  edit(ref: ChatRef, card: Card): Promise<void>;
  /** Plain text into a conversation, e.g. an agent's reply. */
  say(channelId: string, text: string): Promise<ChatRef>;
}

export interface CredentialCheck {
  ok: boolean;
  /** e.g. "auth.test ok", "client ready", "getMe failed: 401". */
  detail: string;
}

/** What the adapter lends the router for one event. */
export interface ChatTransport {
  platform: Platform;
  checkCredentials(): Promise<CredentialCheck>;
}

export interface ChatRouter {
  command(command: ChatCommand, via: ChatTransport): Promise<Reply>;
  interaction(interaction: ChatInteraction, via: ChatTransport): Promise<InteractionResult>;
  /** null: nothing to say (the message went to the agent, which answers on its own). */
  message(message: ChatMessage, via: ChatTransport): Promise<Reply | null>;
}

export const buttonValue = (action: ButtonAction, token: string): string => `${action}:${token}`;

/** Parses "<action>:<token>"; anything else (old or foreign buttons) is null. */
export function parseButtonValue(value: string): { action: ButtonAction; token: string } | null {
  const at = value.lastIndexOf(":");
  const action = value.slice(0, at) as ButtonAction;
  const token = value.slice(at + 1);
  if (at < 0 || !BUTTON_ACTIONS.includes(action) || !/^[\w-]{8,32}$/.test(token)) return null;
  return { action, token };
}

/** A raw HTTP request for an adapter's webhook: the exact body bytes as text, so signatures can be checked. */
export interface RawHttpRequest {
  body: string;
  headers: Record<string, string | string[] | undefined>;
}
export interface RawHttpResponse {
  status: number;
  /** A string is sent as text, an object as JSON, undefined as an empty body. */
  body?: string | object;
}
export interface RawHttpRoute {
  /** e.g. "/slack/events"; mounted as POST on the main server. */
  path: string;
  handle(request: RawHttpRequest): Promise<RawHttpResponse>;
}

/** One platform: a receiver with start/stop that feeds the router and renders its answers. */
export interface ChatAdapter {
  platform: Platform;
  publisher: CardPublisher;
  routes: RawHttpRoute[];
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** Minimal logger shape adapters need (pino satisfies it). */
export interface ChatLog {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export const header = (request: RawHttpRequest, name: string): string | undefined => {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
};
