import type { Queue } from "bullmq";
import { jobId, schedulerId } from "../../policy/ids";
import type { StoredTrigger } from "../../store/triggers";

/** Upserts the trigger's BullMQ job scheduler; it only says "due at T", the database decides the rest. */
export async function scheduleTrigger(queue: Queue, trigger: StoredTrigger): Promise<void> {
  const repeat = trigger.everyMs
    ? { every: trigger.everyMs }
    : { pattern: trigger.cron!, ...(trigger.tz ? { tz: trigger.tz } : {}) };
  await queue.upsertJobScheduler(schedulerId(trigger.id), repeat, {
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
