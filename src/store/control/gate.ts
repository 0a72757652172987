import type { GateVerdict } from "../../policy/gate";
import { DEPLOYMENT_SCOPE } from "../../policy/ids";
import type { Store } from "../connection/client";
import { type Controls, controlsStep, gateOf, gateScopes, notRunningStep, type StoredControl } from "./records";

/** Many control records in one indexed read (the gate for a batch of work). */
export const readControls = (store: Store, scopes: Iterable<string>): Promise<Controls> =>
  store.sql.read((d) => controlsStep(d, scopes));

/** Every record that is not RUNNING. */
export const readNotRunning = (store: Store): Promise<StoredControl[]> => store.sql.read(() => notRunningStep());

/**
 * The records the gate of these agents reads (`gateOf`), in one read. Fails closed: when the read fails, no
 * record is there, and `gateOf` holds every agent as unreadable.
 */
export const readGateControls = (
  store: Store,
  agents: Iterable<{ agentId: string; tenantId: string }>,
): Promise<Controls> => readControls(store, gateScopes(agents)).catch((): Controls => new Map());

/**
 * The fail-closed pause gate every worker calls before it starts outbound work. Any failure to read
 * (database gone, table missing, record missing) holds the work.
 */
export async function checkGate(store: Store, agentId: string, tenantId: string): Promise<GateVerdict> {
  return gateOf(await readGateControls(store, [{ agentId, tenantId }]), agentId, tenantId);
}

/**
 * Agents and tenants whose records say they are not RUNNING: their items are not even claimed. `draining`
 * names the scopes of those records that wait for their in-flight work (cheap to ask after every round).
 */
export async function pausedScopes(
  store: Store,
): Promise<{ agents: string[]; tenants: string[]; draining: string[]; deployment: boolean }> {
  const rows = await readNotRunning(store);
  const scoped = rows.filter((r) => r.scope !== DEPLOYMENT_SCOPE);
  return {
    agents: scoped.filter((r) => r.agentId).map((r) => r.agentId!),
    tenants: scoped.filter((r) => r.agentId === null).map((r) => r.tenantId),
    draining: scoped.filter((r) => r.state === "DRAINING").map((r) => r.scope),
    /** A deployment-wide maintenance window holds everything. */
    deployment: rows.length > scoped.length,
  };
}
