import type { GateVerdict } from "../policy/gate";
import { gateVerdict } from "../policy/gate";
import type { Db } from "./client";
import { readControlPair } from "./control";
import { agentScope, tenantScope } from "./directory";

/**
 * The fail-closed pause gate every worker calls before it starts outbound work. Any failure to read
 * (database gone, table missing, record missing) holds the work.
 */
export async function checkGate(db: Db, agentId: string, tenantId: string): Promise<GateVerdict> {
  try {
    const { agent, tenant } = await readControlPair(db, agentScope(agentId), tenantScope(tenantId));
    return gateVerdict(agent, tenant);
  } catch {
    return { held: true, because: "unreadable" };
  }
}

export async function isHeld(db: Db, agentId: string, tenantId: string): Promise<boolean> {
  return (await checkGate(db, agentId, tenantId)).held;
}
