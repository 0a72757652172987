import type { FastifyRequest } from "fastify";
import { manages } from "../../../policy/access";
import type { Standing } from "../../../policy/roles";
import { findTenantAgent, type KeyHolder, keyHolder, standingOfUser } from "../../app/auth/keys";
import type { HandlerContext } from "../../app/context";
import type { KnownAgent, KnownUser } from "../../app/records";
import { ApiError } from "./errors";

/**
 * Who may call a route, as the OpenAPI document states it and as the route checks it before anything else:
 * - `user`: a user's API key; `agent`: an agent's key or one of its tokens; `agentOrUser`: either;
 * - `agentKey`: an agent's long-lived key only (minting tokens): a person's key or a token is a 403;
 * - `caller`: either, for the agent named in the path (`:agent`): parsed first, then checked;
 * - `none`: open (health, the document itself); `metrics`: the optional HOLDFAST_METRICS_TOKEN, checked by the route.
 */
export type RouteAuth = "user" | "agent" | "agentKey" | "agentOrUser" | "caller" | "none" | "metrics";

/** Who is calling an agent's route: one of the tenant's users (with their standing), or the agent's own key. */
export type Caller =
  | { kind: "user"; id: string; name: string; standing: Standing; agent: KnownAgent }
  | { kind: "agent"; agent: KnownAgent };

/** What each kind of door hands its route once the key checked out. */
export interface Authenticated {
  user: KnownUser;
  agent: KnownAgent;
  agentKey: KnownAgent;
  agentOrUser: KeyHolder;
  caller: Caller;
  none: undefined;
  metrics: undefined;
}

const ACCEPTS: Record<"user" | "agent" | "agentKey" | "agentOrUser" | "caller", ReadonlyArray<KeyHolder["kind"]>> = {
  user: ["user"],
  agent: ["agent"],
  agentKey: ["user", "agent"],
  agentOrUser: ["user", "agent"],
  caller: ["user", "agent"],
};

export function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  const match = header ? /^Bearer\s+(\S+)$/i.exec(header) : null;
  return match?.[1] ?? null;
}

/** The one answer to a missing or unknown key, whatever the door (the OpenAPI document says which key it takes). */
const unauthorized = () => new ApiError("unauthorized", "a valid key is required (Authorization: Bearer <key>)");

/** Checks a request's key against what the route accepts; `agentName` is the path's `:agent` for `caller`. */
export async function authenticate<A extends RouteAuth>(
  ctx: HandlerContext,
  auth: A,
  request: FastifyRequest,
  agentName?: string,
): Promise<Authenticated[A]> {
  if (auth === "none" || auth === "metrics") return undefined as Authenticated[A];
  const token = bearerToken(request);
  const holder = token ? await keyHolder(ctx, token, ACCEPTS[auth as keyof typeof ACCEPTS]) : null;
  if (!holder) throw unauthorized();
  if (holder.kind === "refused") throw tokenRefused(holder.reason);
  if (auth === "agentKey") return mintingAgent(holder) as Authenticated[A];
  if (holder.kind === "agent" && holder.via === "key" && holder.agent.settings.tokensOnly)
    throw new ApiError("tokens_only", "this agent's key only mints tokens (POST /v1/tokens); call with a token");
  if (auth === "agentOrUser") return holder as Authenticated[A];
  if (auth === "caller") return (await callerFor(ctx, holder, String(agentName))) as Authenticated[A];
  // `user` and `agent` accept only their own kind, so the holder is that one.
  return (holder.kind === "user" ? holder.user : holder.agent) as Authenticated[A];
}

const tokenRefused = (reason: "token_revoked" | "token_expired") =>
  new ApiError(
    reason,
    reason === "token_revoked"
      ? "this token was revoked by a pause; mint a fresh one with the agent's key"
      : "this token has expired; mint a fresh one with the agent's key",
  );

/** Only an agent's own long-lived key mints: a token cannot renew itself, and a person has no agent to act as. */
function mintingAgent(holder: KeyHolder): KnownAgent {
  if (holder.kind === "agent" && holder.via === "key") return holder.agent;
  throw new ApiError(
    "forbidden",
    holder.kind === "user"
      ? "only an agent's key mints agent tokens"
      : "a token cannot mint tokens; use the agent's key",
  );
}

/**
 * An agent key only opens its own agent's routes: another agent's name is a 404, exactly as another tenant's
 * agent is for a user.
 */
async function callerFor(ctx: HandlerContext, holder: KeyHolder, agentName: string): Promise<Caller> {
  if (holder.kind === "agent") {
    if (holder.agent.name !== agentName) throw new ApiError("not_found", `no agent '${agentName}'`);
    return { kind: "agent", agent: holder.agent };
  }
  const { user } = holder;
  const agent = await agentOfTenant(ctx, user.tenantId, agentName);
  return { kind: "user", id: user.id, name: user.name, standing: await standingOfUser(ctx, user, agent), agent };
}

/** Another tenant's agent does not exist for this caller: 404, never 403, so names do not leak. */
export async function agentOfTenant(ctx: HandlerContext, tenantId: string, name: string): Promise<KnownAgent> {
  const agent = await findTenantAgent(ctx, tenantId, name);
  if (!agent) throw new ApiError("not_found", `no agent '${name}'`);
  return agent;
}

/** Principals and admins manage an agent's scheduled and inbound work. */
export function requireOwner(caller: Caller, what: string): void {
  if (caller.kind === "user" && manages(caller.standing)) return;
  throw new ApiError("forbidden", `only the agent's principal or an admin can ${what}`);
}
