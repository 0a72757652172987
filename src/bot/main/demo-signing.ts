import crypto from "node:crypto";
import { agentId } from "../../policy/ids";
import type { Store } from "../../store/connection/client";
import { agreedSetting } from "../../store/connection/leases";
import { DEMO } from "../app/demo/seed";

export const DEMO_AGENT_ID = agentId(DEMO.tenant, DEMO.agent);

/**
 * On the example config the demo's agent signs every delivery, so the demo receiver can take only what this
 * demo's Holdfast sent. Its key is random, made by the demo's first start and agreed in its database, so
 * every process of one demo (several on PostgreSQL deliver into each other's receivers) signs alike; it is in
 * no file and no log. A signing secret the example itself gives the agent is kept.
 */
export async function addDemoSigningKey(store: Store, signingKeys: Map<string, Buffer>): Promise<void> {
  if (signingKeys.has(DEMO_AGENT_ID)) return;
  const proposed = crypto.randomBytes(32).toString("base64");
  signingKeys.set(DEMO_AGENT_ID, Buffer.from(await agreedSetting(store, "demoSigningKey", proposed), "base64"));
}
