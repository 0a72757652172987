import type { FastifyRequest } from "fastify";
import { hashKey } from "../../../policy/key-hash";
import { effectiveRole } from "../../../policy/roles";
import type { Db } from "../../../store/connection/client";
import { findAgentByKeyHash, findUserByKeyHash, type KnownAgent, standingOf } from "../../../store/directory/directory";
import { agentOfTenant, bearerToken } from "./auth";
import { ApiError } from "./errors";

/** Who is calling an agent's route: one of the tenant's users (with their role), or the agent's own key. */
export type Caller =
  | { kind: "user"; id: string; name: string; role: ReturnType<typeof effectiveRole>; agent: KnownAgent }
  | { kind: "agent"; agent: KnownAgent };

/**
 * Resolves the bearer key against users first, then agent keys. An agent key only opens its own agent's
 * routes: another agent's name is a 404, exactly as another tenant's agent is for a user.
 */
export async function callerForAgent(db: Db, request: FastifyRequest, agentName: string): Promise<Caller> {
  const token = bearerToken(request);
  if (!token) throw unauthorized();
  const hash = hashKey(token);
  const user = await findUserByKeyHash(db, hash);
  if (user) {
    const agent = await agentOfTenant(db, user.tenantId, agentName);
    const role = effectiveRole(await standingOf(db, user, agent));
    return { kind: "user", id: user.id, name: user.name, role, agent };
  }
  const agent = await findAgentByKeyHash(db, hash);
  if (!agent) throw unauthorized();
  if (agent.name !== agentName) throw new ApiError("not_found", `no agent '${agentName}'`);
  return { kind: "agent", agent };
}

/** Principals and admins manage an agent's scheduled and inbound work. */
export function requireOwner(caller: Caller, what: string): void {
  if (caller.kind === "user" && (caller.role === "principal" || caller.role === "admin")) return;
  throw new ApiError("forbidden", `only the agent's principal or an admin can ${what}`);
}

const unauthorized = () => new ApiError("unauthorized", "a valid API key is required (Authorization: Bearer <key>)");
