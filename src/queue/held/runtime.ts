import crypto from "node:crypto";
import type { Logger } from "pino";
import { z } from "zod";
import type { Faults } from "../../policy/faults";
import type { MetricsSink } from "../../policy/metrics-sink";
import type { Store } from "../../store/connection/client";
import { readControl } from "../../store/control/change";
import { findTrigger } from "../../store/held/triggers";
import { callback, parseOptions, positiveMs, QueueBase, QueueBaseSchema } from "../base";
import { watchDatabase } from "../database-watch";
import { DeliveryLoop, type DeliveryLoopOptions } from "../delivery/delivery-loop";
import { ControlWorker } from "./control-worker";
import { Reconciler } from "./reconciler";
import { DEFAULT_RELEASE_BATCH } from "./run-release";
import { type ControlJobs, controlJobs, scheduleTrigger, unscheduleTrigger } from "./schedules";
import { createTickBatcher } from "./tick-batcher";
import { startTickThread } from "./tick-thread";

export interface HeldRuntimeOptions {
  store: Store;
  log: Logger;
  now: () => Date;
  redisUrl: string;
  /**
   * BullMQ key prefix, the same on every process of a deployment (schedulers, release jobs and the Redis-loss
   * sentinel live under it). Default `{holdfast}`: the braces are a Redis Cluster hash tag, so every key of
   * a queue lands in one slot.
   */
  prefix?: string;
  /** This process, as the owner of the leases it takes (releases, the rebuild). Default: a random id. */
  instanceId?: string;
  /** The trusted scheduler's resume of a pause's `until` (the bot's resume handlers). */
  autoResume(scope: string, until: Date): Promise<void>;
  delivery?: Partial<DeliveryLoopOptions>;
  /** How often the database is re-read for drains, event queues, orphaned holds and a lost Redis. Default 1 s. */
  reconcileMs?: number;
  /** Test-only faults: an armed "release-batch" stops the process (by hanging, to be SIGKILLed) after a release step. */
  faults?: Faults;
  /** What /metrics counts: releases here, deliveries in the loop (unless `delivery.metrics` says otherwise). */
  metrics?: MetricsSink;
  /**
   * Tick jobs in flight at once (default 600: each waits on the group commit, and the batches in flight
   * keep Redis, the tick thread and the database busy side by side). With the one-batch-at-a-time group
   * commit, 600 gave a higher b/a in bench/held.ts than 300 or 450, and 900 no more.
   */
  triggerConcurrency?: number;
  /** At most this many triggers per release step. Default 100. */
  releaseBatch?: number;
  /** After Redis was found emptied and the held-work jobs were rebuilt: other schedulers rebuild theirs. */
  onRedisRebuilt?: () => Promise<void>;
}

const HeldRuntimeSchema = QueueBaseSchema.extend({
  now: callback<() => Date>("the service clock"),
  autoResume: callback<HeldRuntimeOptions["autoResume"]>("the scheduler's resume"),
  instanceId: z
    .string()
    .min(1)
    .default(() => crypto.randomUUID()),
  reconcileMs: positiveMs().default(1000),
  triggerConcurrency: z.number().int().positive("above 0").default(600),
  releaseBatch: z.number().int().min(1, "at least 1").default(DEFAULT_RELEASE_BATCH),
});

export interface HeldRuntime {
  delivery: DeliveryLoop;
  jobs: ControlJobs;
  triggerChanged(triggerId: string): Promise<void>;
  releaseOpened(releaseId: string): Promise<void>;
  controlChanged(scope: string): Promise<void>;
  eventReceived(agentId: string): Promise<void>;
  /** Re-derives every schedule, delayed job and hold from the database (idempotent). */
  rebuild(): Promise<Record<string, number> | null>;
  stop(): Promise<void>;
}

/** Wires BullMQ (timing only), the delivery loop and the database into the held-work machinery. */
export async function startHeldRuntime(options: HeldRuntimeOptions): Promise<HeldRuntime> {
  const { store, log, now, metrics } = options;
  const checked = parseOptions("held runtime", HeldRuntimeSchema, options);
  const base = new QueueBase(checked);
  const triggers = base.queue("triggers");
  const jobs = controlJobs(base.queue("control"), now);
  const redis = base.client({ maxRetriesPerRequest: 1, lazyConnect: false });
  const delivery: DeliveryLoop = new DeliveryLoop({
    store,
    log,
    now,
    metrics,
    ...options.delivery,
    afterRound: (items) => reconciler.afterRound(items),
  });
  const control = new ControlWorker({ ...checked, base, store, delivery, metrics, faults: options.faults });
  const reconciler = new Reconciler({
    ...checked,
    store,
    redis,
    sentinel: `${base.prefix}:epoch`,
    triggers,
    jobs,
    delivery,
    control,
    watch: base.watch,
    onRedisRebuilt: options.onRedisRebuilt,
  });
  const ticks = createTickBatcher({
    store,
    now,
    // Deliveries a batch could lease at once go straight to the loop, without a claim of their own.
    intake: () => delivery.planIntake(),
    async committed(result) {
      if (result.claims.length) delivery.deliver(result.claims);
      if (result.planned > result.claims.length) delivery.nudge();
      for (const releaseId of result.releaseIds) await jobs.release(releaseId);
    },
  });
  const tickThread = await startTickThread({
    redisUrl: base.redisUrl,
    prefix: base.prefix,
    concurrency: checked.triggerConcurrency,
    log,
    inOutage: () => base.watch.inOutage(),
    databaseOutage: (error) => watchDatabase(store, log).outage(error),
    record: (tick) => ticks.add(tick),
  });
  base.closeWithWorkers(tickThread);

  await reconciler.rebuild();
  delivery.start();
  reconciler.start(checked.reconcileMs);

  return {
    delivery,
    jobs,
    rebuild: () => reconciler.rebuild(),
    async triggerChanged(triggerId) {
      const trigger = await findTrigger(store.db, triggerId);
      if (trigger) await scheduleTrigger(triggers, trigger);
      else await unscheduleTrigger(triggers, triggerId);
    },
    releaseOpened: (releaseId) => jobs.release(releaseId),
    async controlChanged(scope) {
      const row = await readControl(store.db, scope);
      if (row?.state === "DRAINING") await jobs.drain(scope, row.drainDeadline);
      if (row && row.state !== "RUNNING" && row.until) await jobs.autoResume(scope, row.until);
      delivery.nudge();
    },
    eventReceived: (agentId) => reconciler.pump(agentId),
    async stop() {
      reconciler.stop();
      await delivery.stop();
      await control.settled();
      await base.close();
    },
  };
}
