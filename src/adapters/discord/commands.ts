import { ApplicationCommandOptionType } from "discord.js";

const agentOption = {
  type: ApplicationCommandOptionType.String,
  name: "agent",
  description: "Which agent (default: your team's only agent, or the one you own)",
  required: false,
};

/** The application commands registered on start. Option values are joined into the neutral command text. */
export const DISCORD_COMMANDS = [
  {
    name: "pause",
    description: "Hold an agent's outbound work",
    options: [
      {
        type: ApplicationCommandOptionType.String,
        name: "text",
        description: "[agent] reason [until 2026-12-14 | 2h]",
        required: false,
      },
    ],
  },
  { name: "resume", description: "Show what a resume releases, then confirm", options: [agentOption] },
  { name: "status", description: "An agent's pause state and held work", options: [agentOption] },
  { name: "approvals", description: "What waits for your decision" },
  { name: "console", description: "A one-time sign-in link to the web console (10 minutes)" },
  { name: "escalations", description: "What is escalating to you" },
  {
    name: "maintenance",
    description: "Admins: hold the whole deployment for a deploy (start [reason]), or let it go (end)",
    options: [
      { type: ApplicationCommandOptionType.String, name: "text", description: "start [reason] | end", required: false },
    ],
  },
];
