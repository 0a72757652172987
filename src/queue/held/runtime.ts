import crypto from "node:crypto";
import { Queue, Worker } from "bullmq";
import { Redis } from "ioredis";
import type { Logger } from "pino";
import type { Faults } from "../../policy/faults";
import { REBUILD_LEASE } from "../../policy/ids";
import type { MetricsSink } from "../../policy/metrics-sink";
import type { Store } from "../../store/connection/client";
import { dropLease, takeLease } from "../../store/connection/leases";
import { readControl } from "../../store/control/change";
import { settleDrain } from "../../store/control/drain";
import { pausedScopes } from "../../store/control/gate";
import { agentsWithEventWork, pumpEvents } from "../../store/held/inbox-pump";
import { unheldOpenReleases } from "../../store/held/releases";
import { findTrigger } from "../../store/held/triggers";
import { createDeliveryLoop, type DeliveryLoop, type DeliveryLoopOptions } from "../delivery/delivery-loop";
import { redisConnection, WORKER_RECOVERY, watchRedis } from "../redis-watch";
import { rebuildFromDatabase, recoverOrphanedHolds } from "./rebuild";
import { runRelease } from "./run-release";

/** Long enough for a rebuild of many triggers; a process that dies mid-rebuild leaves it to another after this. */
const REBUILD_LEASE_MS = 60_000;

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
  rebuild(): Promise<Record<string, number> | null>;
  stop(): Promise<void>;
}

/** Wires BullMQ (timing only), the delivery loop and the database into the held-work machinery. */
export async function startHeldRuntime(options: HeldRuntimeOptions): Promise<HeldRuntime> {
  const { store, log, now } = options;
  const db = store.db;
  const connection = redisConnection(options.redisUrl);
  const prefix = options.prefix ?? "{holdfast}";
  const instanceId = options.instanceId ?? crypto.randomUUID();
  const triggers = new Queue("triggers", { connection, prefix });
  const control = new Queue("control", { connection, prefix });
  const jobs = controlJobs(control, now);
  const sentinel = `${prefix}:epoch`;
  const redis = new Redis(options.redisUrl, { ...connection, maxRetriesPerRequest: 1, lazyConnect: false });
  const watch = watchRedis(options.redisUrl, log); // one warn line when Redis goes, one when it is back
  watch.track(redis, triggers, control);
  const deps = { store, log, now, metrics: options.metrics };

  const delivery = createDeliveryLoop({
    store,
    log,
    now,
    metrics: options.metrics,
    ...options.delivery,
    afterRound: async (items) => {
      for (const agentId of new Set(items.filter((i) => i.kind === "event").map((i) => i.agentId))) {
        if (await pumpEvents(store, agentId, now())) delivery.nudge();
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
    inOutage: () => watch.inOutage(),
    record: (tick) => ticks.add(tick),
  });

  const afterBatch = async (releaseId: string) => {
    if (!options.faults?.armed("release-batch")) return;
    // Freeze outbound work (sends under way finish) so the kill lands between batches, then hang until
    // the test SIGKILLs the process.
    await delivery.stop();
    log.warn({ crashPoint: "release-batch", releaseId }, "test crash point reached");
    await new Promise(() => {});
  };
  const releaseDeps = {
    ...deps,
    instanceId,
    planned: () => delivery.nudge(),
    afterBatch,
    triggersPerStep: options.releaseBatch,
  };
  /** Releases this process works now (a cache: the release's lease decides who works it). */
  const working = new Map<string, Promise<unknown>>();
  const work = (releaseId: string) => {
    let running = working.get(releaseId);
    if (!running) {
      running = runRelease(releaseDeps, releaseId).finally(() => working.delete(releaseId));
      working.set(releaseId, running);
    }
    return running;
  };
  /** Open releases whose holder died (its lease expired) are taken over here, without waiting for BullMQ. */
  async function takeOverReleases(): Promise<void> {
    for (const releaseId of await unheldOpenReleases(store, now())) {
      if (working.has(releaseId)) continue;
      void work(releaseId).catch((error: Error) => log.warn({ releaseId, err: error.message }, "release failed"));
    }
  }
  const controlWorker = new Worker(
    "control",
    async (job) => {
      if (job.name === "release") {
        await work(job.data.releaseId as string);
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

  let rebuilding: Promise<Record<string, number> | null> | null = null;
  /**
   * Re-derives Redis from the database, once for the whole deployment: under the rebuild lease, and only
   * when the sentinel is still missing once the lease is taken (`always`: at start, when this process's
   * own catch-up of the time it was down is due whatever Redis holds). Null when another process has it.
   */
  const rebuild = (always = true) => {
    rebuilding ??= (async () => {
      if (!(await takeLease(store, REBUILD_LEASE, instanceId, REBUILD_LEASE_MS, now()))) return null;
      try {
        if (!always && (await redis.exists(sentinel))) return null;
        const summary = await rebuildFromDatabase({ ...deps, triggers, jobs });
        await redis.set(sentinel, now().toISOString());
        return summary;
      } finally {
        await dropLease(store, REBUILD_LEASE, instanceId);
      }
    })().finally(() => {
      rebuilding = null;
    });
    return rebuilding;
  };

  /** Redis is only timing: when its data is gone (the sentinel with it), everything is rebuilt. */
  async function reconcile(): Promise<void> {
    if (!(await redis.exists(sentinel))) {
      const summary = await rebuild(false);
      if (summary) {
        log.warn(summary, "redis lost its data: schedules and jobs rebuilt from the database");
        await options.onRedisRebuilt?.();
      }
    }
    await takeOverReleases();
    await settleAllDrains();
    for (const agentId of await agentsWithEventWork(db)) if (await pumpEvents(store, agentId, now())) delivery.nudge();
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
      const row = await readControl(db, scope);
      if (row?.state === "DRAINING") await jobs.drain(scope, row.drainDeadline);
      if (row && row.state !== "RUNNING" && row.until) await jobs.autoResume(scope, row.until);
      delivery.nudge();
    },
    async eventReceived(agentId) {
      if (await pumpEvents(store, agentId, now())) delivery.nudge();
    },
    async stop() {
      clearInterval(timer);
      await delivery.stop();
      await Promise.allSettled(working.values());
      await Promise.all([tickThread.close(), controlWorker.close()]);
      await Promise.all([triggers.close(), control.close()]);
      redis.disconnect();
      watch.close();
    },
  };
}
