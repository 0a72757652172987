import type { Queue } from "bullmq";
import { jobId, scheduledMillis, schedulerId } from "../../policy/ids";
import { dueTimesBetween } from "../../policy/schedule";
import { cadenceOf, type StoredTrigger } from "../../store/held/triggers";

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
  const first = await queue.upsertJobScheduler(id, repeat, {
    name: "fire",
    data: { triggerId: trigger.id },
    opts: { removeOnComplete: true, removeOnFail: 1000 },
  });
  if (first?.id && !trigger.lastDueAt) await fireSlotsBeforeScheduler(queue, trigger, scheduledMillis(first));
}

/** At most this many first slots are fired one by one; a longer gap is the rebuild's catch-up to record. */
const FIRST_SLOTS_LIMIT = 10;

/**
 * A new trigger's slots count from its registration (the API announces the first one), but BullMQ's first slot
 * is the one after the upsert, which a slow database or a busy process can put a slot or more later. Those
 * slots are fired as one-off jobs carrying their due time, on the same path as a tick; recording is
 * insert-if-absent, so a slot fired twice (an upsert again, a rebuild) is still one occurrence.
 */
async function fireSlotsBeforeScheduler(queue: Queue, trigger: StoredTrigger, schedulerFirst: number) {
  const slots = dueTimesBetween(cadenceOf(trigger), trigger.createdAt, new Date(schedulerFirst - 1), FIRST_SLOTS_LIMIT);
  for (const slot of slots) {
    const dueAt = slot.getTime();
    await queue.add(
      "fire",
      { triggerId: trigger.id, dueAt },
      { jobId: jobId("first", trigger.id, String(dueAt)), removeOnComplete: true, removeOnFail: 1000 },
    );
  }
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
