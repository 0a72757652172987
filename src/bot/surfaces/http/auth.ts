import type { FastifyRequest } from "fastify";
import { hashKey } from "../../../policy/key-hash";
import type { Db } from "../../../store/connection/client";
import { findAgent, findAgentByKeyHash, findUserByKeyHash } from "../../../store/directory/directory";
import type { KnownAgent, KnownUser } from "../../app/records";
import { ApiError } from "./errors";

export function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  const match = header ? /^Bearer\s+(\S+)$/i.exec(header) : null;
  return match?.[1] ?? null;
}

/** The caller is the user whose key this is; an unknown or missing key is a 401. */
export async function authenticateUser(db: Db, request: FastifyRequest): Promise<KnownUser> {
  const token = bearerToken(request);
  const user = token ? await findUserByKeyHash(db, hashKey(token)) : null;
  if (!user) throw new ApiError("unauthorized", "a valid API key is required (Authorization: Bearer <key>)");
  return user;
}

/** Another tenant's agent does not exist for this caller: 404, never 403, so names do not leak. */
export async function agentOfTenant(db: Db, tenantId: string, name: string): Promise<KnownAgent> {
  const agent = await findAgent(db, tenantId, name);
  if (!agent) throw new ApiError("not_found", `no agent '${name}'`);
  return agent;
}

/** The caller is the agent whose key this is (`Authorization: Bearer <agentKey>`). */
export async function authenticateAgent(db: Db, request: FastifyRequest): Promise<KnownAgent> {
  const token = bearerToken(request);
  const agent = token ? await findAgentByKeyHash(db, hashKey(token)) : null;
  if (!agent) throw new ApiError("unauthorized", "a valid agent key is required (Authorization: Bearer <agentKey>)");
  return agent;
}

/** Reading a run is open to its agent and to the users of its tenant. */
export async function authenticateAgentOrUser(
  db: Db,
  request: FastifyRequest,
): Promise<{ kind: "agent"; agent: KnownAgent } | { kind: "user"; user: KnownUser }> {
  const token = bearerToken(request);
  if (token) {
    const hash = hashKey(token);
    const user = await findUserByKeyHash(db, hash);
    if (user) return { kind: "user", user };
    const agent = await findAgentByKeyHash(db, hash);
    if (agent) return { kind: "agent", agent };
  }
  throw new ApiError("unauthorized", "a valid API or agent key is required (Authorization: Bearer <key>)");
}
