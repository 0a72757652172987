import type { RunState } from "../../policy/approval";
import { type RunRecord, toRunRecord } from "../approvals/runs";
import type { Db } from "../connection/client";
import { type Page, paged } from "./pages";

/** A runs page's sort key: newest first, ties by id. */
export interface RunKey {
  createdAt: Date;
  id: string;
}

export interface RunsFilter {
  state?: RunState | "active" | "completed";
  agentId?: string;
  /** Only runs this user is an assigned reviewer of. */
  reviewerId?: string;
  limit: number;
  after?: RunKey;
}

/**
 * A tenant's runs, newest first, through (tenantId, createdAt), (tenantId, state, createdAt) or
 * (agentId, createdAt). `reviewers` is a JSON array column (shared with SQLite), so the reviewer filter is a
 * text match on the quoted id, made exact here: SQLite's LIKE ignores case.
 */
export async function runsPage(db: Db, tenantId: string, filter: RunsFilter): Promise<Page<RunRecord, RunKey>> {
  const { after, reviewerId } = filter;
  const rows = await db.run.findMany({
    where: {
      tenantId,
      ...(filter.state ? { state: filter.state } : {}),
      ...(filter.agentId ? { agentId: filter.agentId } : {}),
      ...(reviewerId ? { reviewers: { contains: JSON.stringify(reviewerId) } } : {}),
      ...(after
        ? { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { gt: after.id } }] }
        : {}),
    },
    orderBy: [{ createdAt: "desc" }, { id: "asc" }],
    take: filter.limit + 1,
  });
  const page = paged(rows.map(toRunRecord), filter.limit, (run) => ({ createdAt: run.createdAt, id: run.id }));
  return reviewerId ? { ...page, items: page.items.filter((run) => run.reviewers.includes(reviewerId)) } : page;
}
