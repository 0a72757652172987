import type { Db } from "./client";
import type { KnownAgent } from "./directory";

export async function findAgentById(db: Db, id: string): Promise<KnownAgent | null> {
  const row = await db.agent.findUnique({ where: { id } });
  return row ? { ...row, settings: JSON.parse(row.settings) as Record<string, unknown> } : null;
}
