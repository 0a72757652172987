import type { Queue } from "bullmq";
import { jobId, schedulerId } from "../../policy/ids";
import type { StoredTrigger } from "../../store/held/triggers";

/**
 * BullMQ's `every` counts from registration unless given an `offset`: with one, it fires at
 * `floor(now / every) * every + offset` (the next such slot after now) and keeps that grid when it catches
 * up after a stall. An offset of 0 means "none" to BullMQ (it fires at once and counts from there), so the
 * epoch's own grid is asked for as an offset of one whole interval, which names the same slots.
 */
export const bullmqOffset = (everyMs: number, anchorOffsetMs: number): number => anchorOffsetMs || everyMs;

/** Upserts the trigger's BullMQ job scheduler; it only says "due at T", the database decides the rest. */
export async function scheduleTrigger(queue: Queue, trigger: StoredTrigger): Promise<void> {
  const id = schedulerId(trigger.id);
  const repeat = trigger.everyMs
    ? { every: trigger.everyMs, offset: bullmqOffset(trigger.everyMs, trigger.anchorOffsetMs) }
    : { pattern: trigger.cron!, ...(trigger.tz ? { tz: trigger.tz } : {}) };
  if (trigger.everyMs) {
    // An upsert keeps a scheduler's next slot when its interval is unchanged, so one left on another grid
    // (a changed anchor, or one registered before slots were anchored) is replaced rather than updated.
    const existing = await queue.getJobScheduler(id);
    const next = existing?.next;
    if (existing && Number(existing.every) === trigger.everyMs && next != null) {
      if ((((next - trigger.anchorOffsetMs) % trigger.everyMs) + trigger.everyMs) % trigger.everyMs !== 0)
        await queue.removeJobScheduler(id);
    }
  }
  await queue.upsertJobScheduler(id, repeat, {
    name: "fire",
    data: { triggerId: trigger.id },
    opts: { removeOnComplete: true, removeOnFail: 1000 },
  });
}

export async function unscheduleTrigger(queue: Queue, triggerId: string): Promise<void> {
  await queue.removeJobScheduler(schedulerId(triggerId));
}

/** Delayed and immediate control jobs, each keyed so that enqueueing twice is harmless. */
export interface ControlJobs {
  /** `again`: a new job even if one with the release's id still sits in Redis (say, left active by a killed
   * process, which BullMQ would only retry after its stall timeout). Running a release twice is harmless. */
  release(releaseId: string, again?: boolean): Promise<void>;
  drain(scope: string, deadline: Date | null): Promise<void>;
  autoResume(scope: string, until: Date): Promise<void>;
}

export function controlJobs(queue: Queue, now: () => Date): ControlJobs {
  const delayTo = (at: Date) => Math.max(0, at.getTime() - now().getTime());
  const opts = {
    removeOnComplete: true,
    removeOnFail: 1000,
    attempts: 5,
    backoff: { type: "exponential", delay: 500 },
  };
  return {
    async release(releaseId, again = false) {
      const id = again ? jobId("release", releaseId, String(now().getTime())) : jobId("release", releaseId);
      await queue.add("release", { releaseId }, { ...opts, jobId: id });
    },
    async drain(scope, deadline) {
      if (!deadline) return;
      const data = { scope, deadline: deadline.toISOString() };
      await queue.add("drain", data, {
        ...opts,
        jobId: jobId("drain", scope, data.deadline),
        delay: delayTo(deadline),
      });
    },
    async autoResume(scope, until) {
      const data = { scope, until: until.toISOString() };
      await queue.add("auto-resume", data, {
        ...opts,
        jobId: jobId("resume", scope, data.until),
        delay: delayTo(until),
      });
    },
  };
}
