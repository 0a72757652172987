import type { Db } from "./client";
import type { KnownAgent } from "./directory";

export async function findAgentById(db: Db, id: string): Promise<KnownAgent | null> {
  const row = await db.agent.findUnique({ where: { id } });
  if (!row) return null;
  const { agentKeyHash: _secret, settings, ...known } = row;
  return { ...known, settings: JSON.parse(settings) as Record<string, unknown> };
}
