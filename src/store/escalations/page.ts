import type { EscalationState } from "../../policy/escalation";
import type { Db } from "../connection/client";
import { type Page, paged } from "../lists/pages";
import { type StoredEscalation, toEscalation } from "./records";

export interface EscalationKey {
  createdAt: Date;
  id: string;
}

export interface EscalationFilter {
  states: readonly EscalationState[];
  /** null: every escalation of the tenant (admins); otherwise those of these agents or naming this user. */
  visibleTo: { userId: string; agentIds: readonly string[] } | null;
  limit: number;
  after?: EscalationKey;
}

/** A tenant's escalations, newest first (ties by id). */
export async function escalationPage(
  db: Db,
  tenantId: string,
  filter: EscalationFilter,
): Promise<Page<StoredEscalation, EscalationKey>> {
  const after = filter.after;
  const visible = filter.visibleTo;
  const rows = await db.escalation.findMany({
    where: {
      tenantId,
      state: { in: [...filter.states] },
      ...(visible
        ? {
            OR: [{ agentId: { in: [...visible.agentIds] } }, { targets: { contains: JSON.stringify(visible.userId) } }],
          }
        : {}),
      ...(after
        ? {
            AND: [
              { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { gt: after.id } }] },
            ],
          }
        : {}),
    },
    orderBy: [{ createdAt: "desc" }, { id: "asc" }],
    take: filter.limit + 1,
  });
  return paged(rows.map(toEscalation), filter.limit, (e) => ({ createdAt: e.createdAt, id: e.id }));
}
