import type { Queue } from "bullmq";
import type { Logger } from "pino";
import { REBUILD_LEASE } from "../../policy/ids";
import type { Store } from "../../store/connection/client";
import { dropLease, takeLease } from "../../store/connection/leases";
import { settleDrain } from "../../store/control/drain";
import { pausedScopes } from "../../store/control/gate";
import { agentsWithEventWork, pumpEvents } from "../../store/held/inbox-pump";
import { unheldOpenReleases } from "../../store/held/releases";
import type { OutboxItem } from "../../store/outbox/types";
import { watchDatabase } from "../database-watch";
import type { DeliveryLoop } from "../delivery/delivery-loop";
import type { RedisClient } from "../redis-address.mjs";
import { RECONNECT_MS, type RedisWatch } from "../redis-watch";
import type { ControlWorker } from "./control-worker";
import { rebuildFromDatabase, recoverOrphanedHolds } from "./rebuild";
import type { ControlJobs } from "./schedules";

/** Long enough for a rebuild of many triggers; a process that dies mid-rebuild leaves it to another after this. */
const REBUILD_LEASE_MS = 60_000;

export interface ReconcilerDeps {
  store: Store;
  log: Logger;
  now: () => Date;
  instanceId: string;
  /** A plain client for the Redis-loss sentinel. */
  redis: RedisClient;
  /** The key whose absence says Redis lost its data. */
  sentinel: string;
  triggers: Queue;
  jobs: ControlJobs;
  delivery: DeliveryLoop;
  control: ControlWorker;
  watch: RedisWatch;
  /** After Redis was found emptied and the held-work jobs were rebuilt: other schedulers rebuild theirs. */
  onRedisRebuilt?: () => Promise<void>;
}

/**
 * What the database says must happen, done whatever Redis still holds: once a tick (`everyMs`) it rebuilds a
 * Redis that lost its data, takes over releases whose holder died, settles drains, pumps the event queues and
 * recovers orphaned holds. After each delivery round it pumps and settles what the round may have freed.
 */
export class Reconciler {
  private rebuilding: Promise<Record<string, number> | null> | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly deps: ReconcilerDeps) {}

  /**
   * Re-derives Redis from the database, once for the whole deployment: under the rebuild lease, and only
   * when the sentinel is still missing once the lease is taken (`always`: at start, when this process's
   * own catch-up of the time it was down is due whatever Redis holds). Null when another process has it.
   */
  rebuild(always = true): Promise<Record<string, number> | null> {
    const { store, instanceId, now, redis, sentinel } = this.deps;
    this.rebuilding ??= (async () => {
      if (!(await takeLease(store, REBUILD_LEASE, instanceId, REBUILD_LEASE_MS, now()))) return null;
      try {
        if (!always && (await redis.exists(sentinel))) return null;
        const summary = await rebuildFromDatabase(this.deps);
        await redis.set(sentinel, now().toISOString());
        return summary;
      } finally {
        await dropLease(store, REBUILD_LEASE, instanceId);
      }
    })().finally(() => {
      this.rebuilding = null;
    });
    return this.rebuilding;
  }

  /** Ticks every `everyMs`, one tick at a time; a failed tick is one warn line while Redis and the database are up. */
  start(everyMs: number): void {
    let reconciling = false;
    this.timer = setInterval(() => {
      if (reconciling) return;
      reconciling = true;
      this.tick()
        .catch((error: Error) => {
          // An outage of Redis or of the database is reported once by its watch.
          if (watchDatabase(this.deps.store, this.deps.log).outage(error) || !this.deps.watch.up) return;
          this.deps.log.warn({ err: error.message }, "reconcile failed");
        })
        .finally(() => {
          reconciling = false;
        });
    }, everyMs);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** The delivery loop's after-round step: event queues of the round's agents, then the drains. */
  async afterRound(items: OutboxItem[]): Promise<void> {
    for (const agentId of new Set(items.filter((i) => i.kind === "event").map((i) => i.agentId))) {
      await this.pump(agentId);
    }
    await this.settleAllDrains();
  }

  /** Plans the agent's next held-back events, waking the loop when it planned any. */
  async pump(agentId: string): Promise<void> {
    if (await pumpEvents(this.deps.store, agentId, this.deps.now())) this.deps.delivery.nudge();
  }

  private async settleAllDrains(): Promise<void> {
    const { store, now } = this.deps;
    for (const scope of (await pausedScopes(store)).draining) await settleDrain(store, scope, now());
  }

  /**
   * Redis is only timing: when its data is gone (the sentinel with it), everything is rebuilt. The steps after
   * it read and write the database alone, so they run whatever Redis answers: a release whose job was lost
   * with a failed-over primary is still taken over here.
   */
  private async tick(): Promise<void> {
    const { store, now, jobs } = this.deps;
    const redisStep = this.repairRedis().catch((error: Error) => error);
    await this.takeOverReleases();
    await this.settleAllDrains();
    for (const agentId of await agentsWithEventWork(store.db)) await this.pump(agentId);
    await recoverOrphanedHolds({ store, now, jobs });
    const failed = await redisStep;
    if (failed) throw failed;
  }

  /** When Redis came back since the last look: the epoch key may have been lost with its data. */
  private backSeen = 0;

  /**
   * Rebuilds a Redis that lost its data (its epoch key is gone), and, after any outage, upserts the schedules
   * again: a primary that failed over may have taken the last writes with it (a scheduler's next job, a release
   * job) while the epoch key, written long before, survived on the replica. Both are idempotent.
   */
  private async repairRedis(): Promise<void> {
    const { redis, sentinel, log, watch } = this.deps;
    if (!(await redis.exists(sentinel))) {
      // This connection may be back a moment before the watch's (each retries every RECONNECT_MS): the log
      // says "redis is back" before what was found there.
      await watch.untilUp(4 * RECONNECT_MS);
      const summary = await this.rebuild(false);
      if (summary) {
        log.warn(summary, "redis lost its data: schedules and jobs rebuilt from the database");
        await this.deps.onRedisRebuilt?.();
      }
      this.backSeen = watch.backAt;
      return;
    }
    if (watch.up && watch.backAt !== this.backSeen) {
      const summary = await this.rebuild();
      this.backSeen = watch.backAt;
      if (summary) log.info(summary, "redis is back: schedules and held work upserted again");
    }
  }

  /** Open releases whose holder died (its lease expired) are taken over here, without waiting for BullMQ. */
  private async takeOverReleases(): Promise<void> {
    const { store, now, control, log } = this.deps;
    for (const releaseId of await unheldOpenReleases(store, now())) {
      if (control.isWorking(releaseId)) continue;
      void control
        .work(releaseId)
        .catch((error: Error) => log.warn({ releaseId, err: error.message }, "release failed"));
    }
  }
}
