import type { Db } from "../connection/client";
import { type KnownAgent, toKnownAgent } from "../directory/directory";
import { ascendingBy, type Page, paged, type TextPage } from "./pages";

/** A tenant's agents by name, through the unique (tenantId, name). */
export async function agentsPage(db: Db, tenantId: string, page: TextPage): Promise<Page<KnownAgent, string>> {
  const { after, orderBy, take } = ascendingBy("name", page);
  const rows = await db.agent.findMany({ where: { tenantId, ...after }, orderBy, take });
  return paged(rows.map(toKnownAgent), page.limit, (agent) => agent.name);
}
