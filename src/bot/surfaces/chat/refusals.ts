import type { PauseArgsError } from "./pause-args";
import type { Platform } from "./types";

/** Every reason the chat layer says no. Typed codes; words come only from `refusalText`. */
export type ChatRefusalCode =
  | "unknown_workspace"
  | "unknown_user"
  | "no_agent"
  | "ambiguous_agent"
  | "creator_hold"
  | "forbidden"
  | "not_paused"
  | "unknown_button"
  | "stale_card"
  | "cancel_forbidden"
  | "no_conversation"
  | "agent_unreachable"
  | "unreadable_text"
  | "no_console"
  | "checklist_failed"
  | PauseArgsError;

export interface ChatRefusal {
  code: ChatRefusalCode;
  /** Names the words need: the agent, the agents to choose from, the person who asked. */
  agent?: string;
  choices?: string[];
  person?: string;
}

const WORKSPACE: Record<Platform, string> = {
  slack: "Slack workspace",
  discord: "Discord server",
  telegram: "Telegram account",
  web: "console sign-in",
};

/** Slack and Discord draw `text` as code; Telegram's plain messages and the console would show the backticks. */
const typed = (text: string, platform: Platform) =>
  platform === "slack" || platform === "discord" ? `\`${text}\`` : `“${text}”`;

/** The one place a chat refusal code becomes words. The code stays visible so people can quote it. */
export function refusalText(refusal: ChatRefusal, platform: Platform): string {
  const agent = refusal.agent ?? "the agent";
  const words: Record<ChatRefusalCode, string> = {
    unknown_workspace: `Sorry, this ${WORKSPACE[platform]} is not connected to Holdfast, so I can't act here.`,
    unknown_user: `Sorry, I don't know you yet. Ask an admin to add your ${platform} account to the Holdfast directory.`,
    no_agent: "Your team has no agents in Holdfast yet.",
    ambiguous_agent: `Which agent? Name it first, e.g. ${typed(`${refusal.choices?.[0] ?? "agent"} vacation`, platform)}. Agents: ${(refusal.choices ?? []).join(", ")}.`,
    creator_hold: "This pause is an admin hold; only an admin can lift it.",
    forbidden: `Only ${agent}'s principal or an admin can resume it.`,
    not_paused: `${agent} is not paused, so there is nothing to resume.`,
    unknown_button: "This button is no longer valid; run the command again.",
    stale_card: `This card was out of date: ${agent}'s pause changed since it was shown (or the card was used), so nothing was resumed. It now shows a fresh preflight; confirm there.`,
    cancel_forbidden: `Only ${refusal.person ?? "the person who asked"} or an admin can cancel this.`,
    no_conversation: `${agent} has no conversation destination configured, so I can't pass your message on.`,
    agent_unreachable: `I couldn't reach ${agent} just now; please try again in a moment.`,
    unreadable_text: "I can't read that: it holds a NUL character. Please type it again.",
    no_console: "The web console is not served by this Holdfast.",
    checklist_failed: `A resume check failed, so ${agent} stays paused. The card shows what each check said; a principal or an admin may resume anyway with a reason.`,
    invalid_until: `I couldn't read the time after ${typed("until", platform)}. Use a date like 2026-12-14, a time like 2026-12-14T09:00Z, or a duration like 2h or 3d.`,
    until_in_past: "That time is already past; give a time in the future.",
    until_too_far: "That is too far ahead: an automatic resume must fall before the year 10000. Give a nearer time.",
  };
  return `${words[refusal.code]} (${refusal.code})`;
}
