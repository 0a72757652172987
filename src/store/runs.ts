import type { Db } from "./client";

export interface WaitingRun {
  id: string;
  agentId: string;
  operation: string | null;
  version: number;
  deadline: Date | null;
  createdAt: Date;
}

/**
 * Runs waiting for a decision where the user is an assigned reviewer. `reviewers` is a JSON array column
 * (the schema is shared with SQLite), so the membership test happens here rather than in SQL.
 */
export async function listRunsAwaitingReviewer(db: Db, tenantId: string, userId: string): Promise<WaitingRun[]> {
  const rows = await db.run.findMany({ where: { tenantId, state: "waiting" }, orderBy: { createdAt: "asc" } });
  return rows
    .filter((row) => (JSON.parse(row.reviewers) as string[]).includes(userId))
    .map(({ id, agentId, operation, version, deadline, createdAt }) => ({
      id,
      agentId,
      operation,
      version,
      deadline,
      createdAt,
    }));
}
