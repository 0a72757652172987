import { createExpiryScheduler } from "../../queue/expiry";
import { findRun, listWaitingDeadlines } from "../../store/approvals/runs";
import { expireRun } from "../app/approvals/expire-run";
import type { HandlerContext } from "../app/context";
import { react } from "./reactions";

/**
 * Keeps one expiry job per waiting run: scheduled whenever a run changes, and rebuilt from the database at
 * start and whenever Redis is found emptied. Returns the cleanup.
 */
export async function startApprovalScheduling(
  ctx: HandlerContext,
  redis: { url: string; prefix: string },
): Promise<() => Promise<void>> {
  const scheduler = createExpiryScheduler({
    redisUrl: redis.url,
    prefix: redis.prefix,
    log: ctx.log,
    onDue: async (runId, deadline) => {
      const run = await findRun(ctx.store.db, runId);
      // A new packet may have moved the deadline: that has its own job, and this one is void.
      if (run?.deadline?.getTime() !== deadline.getTime()) return "done";
      return (await expireRun(ctx, runId)) === "not_due" ? "not_due" : "done";
    },
  });
  const scheduleRun = async (runId: string) => {
    const run = await findRun(ctx.store.db, runId);
    if (run?.state === "waiting" && run.deadline) await scheduler.schedule(run.id, run.deadline, ctx.now());
  };
  const scheduleAllWaiting = async () => {
    for (const { id, deadline } of await listWaitingDeadlines(ctx.store.db)) {
      await scheduler.schedule(id, deadline, ctx.now());
    }
  };
  // A failed (re)schedule is rebuilt at the next start, and at the next Redis rebuild.
  const stopReacting = react(ctx, { expiry: { scheduleRun, rebuild: scheduleAllWaiting } });
  await scheduleAllWaiting();
  return async () => {
    stopReacting();
    await scheduler.close();
  };
}
