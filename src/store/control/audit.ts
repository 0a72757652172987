import type { Db } from "../connection/client";

/** The latest successful resume of a scope at or after `since` (a re-sent Confirm shows who resumed). */
export async function lastResumeSince(db: Db, scope: string, since: Date) {
  return db.controlAudit.findFirst({
    where: { scope, action: "resume", outcome: "resumed", at: { gte: since } },
    orderBy: { id: "desc" },
    select: { actorId: true, at: true },
  });
}
