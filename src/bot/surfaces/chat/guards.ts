import { identifyCaller, tenantAgent, tenantAgents } from "../../app/chat/identify";
import type { HandlerContext } from "../../app/context";
import type { KnownAgent, KnownUser } from "../../app/records";
import { chooseAgent } from "./agent-choice";
import type { ChatRefusal } from "./refusals";
import type { ChatActor } from "./types";

/**
 * Guards are small steps that either enrich the request or refuse it, like middleware: a refusal stops the
 * request, so a refused request changes nothing. What they look up is asked of the use cases (app/chat).
 */
export type Guarded<T> = { ok: true; value: T } | { ok: false; refusal: ChatRefusal };
export type Guard<In, Out> = (ctx: HandlerContext, input: In) => Promise<Guarded<Out>>;

export const pass = <T>(value: T): Guarded<T> => ({ ok: true, value });
export const refuse = <T>(refusal: ChatRefusal): Guarded<T> => ({ ok: false, refusal });

/** Platform identity -> directory user of the right tenant, or a polite refusal. */
export const identify: Guard<ChatActor, KnownUser> = async (ctx, actor) => {
  const caller = await identifyCaller(ctx, actor);
  return caller.ok ? pass(caller.user) : refuse({ code: caller.code });
};

export interface Targeted {
  user: KnownUser;
  agent: KnownAgent;
  /** The command text with the agent's name removed. */
  rest: string;
}

/** Picks the agent the text is about (see chooseAgent). */
export const targetAgent: Guard<{ user: KnownUser; text: string }, Targeted> = async (ctx, { user, text }) => {
  const choice = chooseAgent(await tenantAgents(ctx, user.tenantId), user, text);
  return choice.ok
    ? pass({ user, agent: choice.agent, rest: choice.rest })
    : refuse({ code: choice.code, choices: choice.choices });
};

/** The agent a surface names itself (the console's chat box): one of the user's tenant, or `no_agent`. */
export async function namedAgent(ctx: HandlerContext, user: KnownUser, name: string): Promise<Guarded<Targeted>> {
  const agent = await tenantAgent(ctx, user.tenantId, name);
  return agent ? pass({ user, agent, rest: "" }) : refuse({ code: "no_agent" });
}
