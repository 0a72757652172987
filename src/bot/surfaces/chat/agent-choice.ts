import type { KnownAgent, KnownUser } from "../../app/records";

export type AgentChoice =
  | { ok: true; agent: KnownAgent; rest: string }
  | { ok: false; code: "no_agent" | "ambiguous_agent"; choices: string[] };

/**
 * Which agent a command is about. Pure; the tenant's agents are passed in.
 * 1. The first word, when it names one of the tenant's agents (then it is removed from the text).
 * 2. The tenant's only agent.
 * 3. The one agent the user is principal of.
 * Otherwise the user is asked to name one: guessing could pause the wrong agent.
 */
export function chooseAgent(agents: KnownAgent[], user: KnownUser, text: string): AgentChoice {
  const trimmed = text.trim();
  const [first = "", ...rest] = trimmed.split(/\s+/);
  const named = agents.find((a) => a.name === first);
  if (named) return { ok: true, agent: named, rest: rest.join(" ") };
  if (agents.length === 0) return { ok: false, code: "no_agent", choices: [] };
  if (agents.length === 1) return { ok: true, agent: agents[0]!, rest: trimmed };
  const own = agents.filter((a) => a.principalId === user.id);
  if (own.length === 1) return { ok: true, agent: own[0]!, rest: trimmed };
  return { ok: false, code: "ambiguous_agent", choices: agents.map((a) => a.name) };
}
