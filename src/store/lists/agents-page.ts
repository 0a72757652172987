import type { Db } from "../connection/client";
import { type KnownAgent, toKnownAgent } from "../directory/directory";
import { type Page, paged } from "./pages";

/** A tenant's agents by name, through the unique (tenantId, name). */
export async function agentsPage(
  db: Db,
  tenantId: string,
  page: { limit: number; after?: string },
): Promise<Page<KnownAgent, string>> {
  const rows = await db.agent.findMany({
    where: { tenantId, ...(page.after !== undefined ? { name: { gt: page.after } } : {}) },
    orderBy: { name: "asc" },
    take: page.limit + 1,
  });
  return paged(rows.map(toKnownAgent), page.limit, (agent) => agent.name);
}
