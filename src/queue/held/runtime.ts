import { Queue, Worker } from "bullmq";
import { Redis } from "ioredis";
import type { Logger } from "pino";
import type { Store } from "../../store/client";
import { settleDrain } from "../../store/drain";
import { agentsWithEventWork, pumpEvents } from "../../store/inbox-pump";
import { pausedScopes } from "../../store/outbox";
import { findTrigger } from "../../store/triggers";
import { createDeliveryLoop, type DeliveryLoop, type DeliveryLoopOptions } from "../delivery/delivery-loop";
import { redisConnection, WORKER_RECOVERY, watchRedis } from "../redis-watch";
import { rebuildFromDatabase, recoverOrphanedHolds } from "./rebuild";
import { runRelease } from "./run-release";
import { type ControlJobs, controlJobs, scheduleTrigger, unscheduleTrigger } from "./schedules";
import { createTickBatcher } from "./tick-batcher";
import { startTickThread } from "./tick-thread";

export interface HeldRuntimeOptions {
  store: Store;
  log: Logger;
  now: () => Date;
  redisUrl: string;
  /** BullMQ key prefix; tests give each file its own so parallel files never share queues. */
  prefix?: string;
  /** The trusted scheduler's resume of a pause's `until` (the bot's resume handlers). */
  autoResume(scope: string, until: Date): Promise<void>;
  delivery?: Partial<DeliveryLoopOptions>;
  /** How often the database is re-read for drains, event queues, orphaned holds and a lost Redis. Default 1 s. */
  reconcileMs?: number;
  /** Test-only: "release-batch" stops the process (by hanging, to be SIGKILLed) after a release batch. */
  crashAt?: string;
  /**
   * Tick jobs in flight at once (default 600: each waits on the group commit, and the batches in flight
   * keep Redis, the tick thread and the database busy side by side). With the one-batch-at-a-time group
   * commit, 600 gave a higher b/a in bench/held.ts than 300 or 450, and 900 no more.
   */
  triggerConcurrency?: number;
  /** At most this many triggers per release step (SQLite; PostgreSQL steps one trigger at a time). */
  releaseBatch?: number;
  /** After Redis was found emptied and the held-work jobs were rebuilt: other schedulers rebuild theirs. */
  onRedisRebuilt?: () => Promise<void>;
}

export interface HeldRuntime {
  delivery: DeliveryLoop;
  jobs: ControlJobs;
  triggerChanged(triggerId: string): Promise<void>;
  releaseOpened(releaseId: string): Promise<void>;
  controlChanged(scope: string): Promise<void>;
  eventReceived(agentId: string): Promise<void>;
  /** Re-derives every schedule, delayed job and hold from the database (idempotent). */
  rebuild(): Promise<Record<string, number>>;
  stop(): Promise<void>;
}

/** Wires BullMQ (timing only), the delivery loop and the database into the held-work machinery. */
export async function startHeldRuntime(options: HeldRuntimeOptions): Promise<HeldRuntime> {
  const { store, log, now } = options;
  const db = store.db;
  const connection = redisConnection(options.redisUrl);
  const prefix = options.prefix ?? "holdfast";
  const triggers = new Queue("triggers", { connection, prefix });
  const control = new Queue("control", { connection, prefix });
  const jobs = controlJobs(control, now);
  const sentinel = `${prefix}:epoch`;
  const redis = new Redis(options.redisUrl, { ...connection, maxRetriesPerRequest: 1, lazyConnect: false });
  const watch = watchRedis(options.redisUrl, log); // one warn line when Redis goes, one when it is back
  watch.track(redis, triggers, control);
  const deps = { store, log, now };

  const delivery = createDeliveryLoop({
    store,
    log,
    now,
    ...options.delivery,
    afterRound: async (items) => {
      for (const agentId of new Set(items.filter((i) => i.kind === "event").map((i) => i.agentId))) {
        if (await pumpEvents(db, agentId, now())) delivery.nudge();
      }
      await settleAllDrains();
    },
  });

  async function settleAllDrains(): Promise<void> {
    for (const scope of (await pausedScopes(store)).draining) await settleDrain(db, scope, now());
  }

  const ticks = createTickBatcher({
    store,
    now,
    // Deliveries a batch could lease at once go straight to the loop, without a claim of their own.
    intake: () => ({ leaseMs: delivery.leaseMs, limit: delivery.intakeRoom() }),
    async committed(result) {
      if (result.claims.length) delivery.deliver(result.claims);
      if (result.planned > result.claims.length) delivery.nudge();
      for (const releaseId of result.releaseIds) await jobs.release(releaseId);
    },
  });
  const tickThread = await startTickThread({
    redisUrl: options.redisUrl,
    prefix,
    concurrency: options.triggerConcurrency ?? 600,
    log,
    record: (tick) => ticks.add(tick),
  });

  const afterBatch = async (releaseId: string) => {
    if (options.crashAt !== "release-batch") return;
    // Freeze outbound work (sends under way finish) so the kill lands between batches, then hang until
    // the test SIGKILLs the process.
    await delivery.stop();
    log.warn({ crashPoint: "release-batch", releaseId }, "test crash point reached");
    await new Promise(() => {});
  };
  const controlWorker = new Worker(
    "control",
    async (job) => {
      if (job.name === "release") {
        const step = { ...deps, planned: () => delivery.nudge(), afterBatch, triggersPerStep: options.releaseBatch };
        await runRelease(step, job.data.releaseId as string);
      } else if (job.name === "drain") {
        await settleDrain(db, job.data.scope as string, now());
      } else if (job.name === "auto-resume") {
        await options.autoResume(job.data.scope as string, new Date(job.data.until as string));
      }
    },
    { connection, prefix, concurrency: 4, ...WORKER_RECOVERY },
  );
  controlWorker.on("failed", (job, error) => log.warn({ job: job?.name, err: error.message }, "job failed"));
  watch.track(controlWorker);

  let rebuilding: Promise<Record<string, number>> | null = null;
  const rebuild = () => {
    rebuilding ??= rebuildFromDatabase({ ...deps, triggers, jobs })
      .then(async (summary) => {
        await redis.set(sentinel, now().toISOString());
        return summary;
      })
      .finally(() => {
        rebuilding = null;
      });
    return rebuilding;
  };

  /** Redis is only timing: when its data is gone (the sentinel with it), everything is rebuilt. */
  async function reconcile(): Promise<void> {
    if (!(await redis.exists(sentinel))) {
      log.warn("redis lost its data: rebuilding schedules and jobs from the database");
      await rebuild();
      await options.onRedisRebuilt?.();
    }
    await settleAllDrains();
    for (const agentId of await agentsWithEventWork(db)) if (await pumpEvents(db, agentId, now())) delivery.nudge();
    await recoverOrphanedHolds({ store, now, jobs });
  }

  await rebuild();
  delivery.start();
  let reconciling = false;
  const timer = setInterval(() => {
    if (reconciling) return;
    reconciling = true;
    reconcile()
      .catch((error: Error) => watch.up && log.warn({ err: error.message }, "reconcile failed"))
      .finally(() => {
        reconciling = false;
      });
  }, options.reconcileMs ?? 1000);

  return {
    delivery,
    jobs,
    rebuild,
    async triggerChanged(triggerId) {
      const trigger = await findTrigger(db, triggerId);
      if (trigger) await scheduleTrigger(triggers, trigger);
      else await unscheduleTrigger(triggers, triggerId);
    },
    releaseOpened: (releaseId) => jobs.release(releaseId),
    async controlChanged(scope) {
      const row = await db.control.findUnique({ where: { scope } });
      if (row?.state === "DRAINING") await jobs.drain(scope, row.drainDeadline);
      if (row && row.state !== "RUNNING" && row.until) await jobs.autoResume(scope, row.until);
      delivery.nudge();
    },
    async eventReceived(agentId) {
      if (await pumpEvents(db, agentId, now())) delivery.nudge();
    },
    async stop() {
      clearInterval(timer);
      await delivery.stop();
      await Promise.all([tickThread.close(), controlWorker.close()]);
      await Promise.all([triggers.close(), control.close()]);
      redis.disconnect();
      watch.close();
    },
  };
}
