import { identityKey } from "../../../policy/ids";
import { findAgent, findUserByIdentity } from "../../../store/directory/directory";
import {
  findDiscordUserInAnyGuild,
  findTenantByWorkspace,
  listTenantAgents,
} from "../../../store/directory/identities";
import type { HandlerContext } from "../../app/context";
import type { KnownAgent, KnownUser } from "../../app/records";
import { chooseAgent } from "./agent-choice";
import type { ChatRefusal } from "./refusals";
import type { ChatActor } from "./types";

/**
 * Guards are small steps that either enrich the request or refuse it, composed like middleware.
 * A refusal stops the chain; nothing after it runs, so a refused request changes nothing.
 */
export type Guarded<T> = { ok: true; value: T } | { ok: false; refusal: ChatRefusal };
export type Guard<In, Out> = (ctx: HandlerContext, input: In) => Promise<Guarded<Out>>;

export const pass = <T>(value: T): Guarded<T> => ({ ok: true, value });
export const refuse = <T>(refusal: ChatRefusal): Guarded<T> => ({ ok: false, refusal });

export function compose<A, B, C>(first: Guard<A, B>, second: Guard<B, C>): Guard<A, C> {
  return async (ctx, input) => {
    const step = await first(ctx, input);
    return step.ok ? second(ctx, step.value) : step;
  };
}

interface Located {
  actor: ChatActor;
  /** The tenant of the Slack team / Discord guild the request came from, when it came from one. */
  workspaceTenant: string | null;
}

/** A Slack team or Discord guild must be configured for some tenant. */
const knownWorkspace: Guard<ChatActor, Located> = async (ctx, actor) => {
  // A console session names its tenant itself (its identity is web:<tenant>:<user>).
  if (actor.platform === "web") return pass({ actor, workspaceTenant: actor.workspaceId ?? null });
  if (actor.platform === "telegram" || !actor.workspaceId) return pass({ actor, workspaceTenant: null });
  const tenant = await findTenantByWorkspace(ctx.store.db, actor.platform, actor.workspaceId);
  return tenant ? pass({ actor, workspaceTenant: tenant }) : refuse({ code: "unknown_workspace" });
};

/** The platform identity must map to a directory user. */
const knownUser: Guard<Located, Located & { user: KnownUser }> = async (ctx, located) => {
  const { actor } = located;
  const { db } = ctx.store;
  const user =
    actor.platform === "telegram"
      ? await findUserByIdentity(db, identityKey({ platform: "telegram", userId: actor.userId }))
      : actor.workspaceId
        ? await findUserByIdentity(
            db,
            identityKey({ platform: actor.platform, workspaceId: actor.workspaceId, userId: actor.userId }),
          )
        : actor.platform === "discord"
          ? await findDiscordUserInAnyGuild(db, actor.userId)
          : null;
  return user ? pass({ ...located, user }) : refuse({ code: "unknown_user" });
};

/** Belt and braces: a user found through a workspace must belong to that workspace's tenant. */
const sameTenant: Guard<Located & { user: KnownUser }, KnownUser> = async (_ctx, { user, workspaceTenant }) =>
  workspaceTenant === null || workspaceTenant === user.tenantId ? pass(user) : refuse({ code: "unknown_user" });

/** Platform identity -> directory user of the right tenant, or a polite refusal. */
export const identify: Guard<ChatActor, KnownUser> = compose(compose(knownWorkspace, knownUser), sameTenant);

export interface Targeted {
  user: KnownUser;
  agent: KnownAgent;
  /** The command text with the agent's name removed. */
  rest: string;
}

/** Picks the agent the text is about (see chooseAgent). */
export const targetAgent: Guard<{ user: KnownUser; text: string }, Targeted> = async (ctx, { user, text }) => {
  const choice = chooseAgent(await listTenantAgents(ctx.store.db, user.tenantId), user, text);
  return choice.ok
    ? pass({ user, agent: choice.agent, rest: choice.rest })
    : refuse({ code: choice.code, choices: choice.choices });
};

/** The agent a surface names itself (the console's chat box): one of the user's tenant, or `no_agent`. */
export async function namedAgent(ctx: HandlerContext, user: KnownUser, name: string): Promise<Guarded<Targeted>> {
  const agent = await findAgent(ctx.store.db, user.tenantId, name);
  return agent ? pass({ user, agent, rest: "" }) : refuse({ code: "no_agent" });
}
