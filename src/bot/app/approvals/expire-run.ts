import { expire } from "../../../policy/approval";
import { findRun } from "../../../store/approvals/runs";
import type { HandlerContext } from "../context";
import { commitRun } from "./commit-run";

export type ExpireRunResult = "expired" | "not_due" | "invalid_state" | "not_found";

/**
 * The trusted scheduler's expiry (a delayed job at the deadline): a run still waiting becomes `expired`
 * at version + 1, recorded as a decision without an actor. It queues nothing.
 */
export async function expireRun(ctx: HandlerContext, runId: string): Promise<ExpireRunResult> {
  const { db } = ctx.store;
  const run = await findRun(db, runId);
  if (!run) return "not_found";
  const now = ctx.now();
  const decision = expire(run, now);
  if (decision.result !== "expired") return decision.result;
  const won = await commitRun(ctx, run, "expired", {
    next: decision.next,
    at: now,
    event: {
      eventId: `expiry:${run.deadline!.toISOString()}`,
      fingerprint: "scheduler",
      actorId: null,
      action: "expire",
      version: run.version,
      digest: run.digest,
      result: "expired",
    },
  });
  if (!won) return "invalid_state"; // a decision got there first
  ctx.log.info({ run: runId, version: decision.next.version }, "run expired");
  ctx.events.emit("run.changed", runId);
  return "expired";
}
