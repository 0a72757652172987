import crypto from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startMonitorQueue } from "../../src/queue/monitor";
import { lastMonitorTickAt } from "../../src/store/escalations/monitor-tick";
import { comingDay } from "../support/clock";
import { PROVIDERS } from "../support/databases";
import {
  BOB,
  createEscalationHarness,
  type EscalationHarness,
  KINDS,
  MIN,
  makeWait,
  pingsTo,
  TITLE,
} from "../support/escalation-harness";
import { type PrivateRedis, startPrivateRedis } from "../support/redis-server";

// The monitor as it runs in the bot: ticks from a BullMQ job scheduler, here on a Redis of the test's own,
// so FLUSHALL disturbs no other file. Two processes' schedulers and workers share it, as in production.
describe.each(PROVIDERS)("the scheduled monitor on %s", (provider) => {
  const T0 = comingDay(8);
  let h: EscalationHarness;
  let redis: PrivateRedis;

  beforeEach(async () => {
    h = await createEscalationHarness(provider, T0);
    redis = await startPrivateRedis();
  });
  afterEach(async () => {
    await redis.stop();
    await h.close();
  });

  it.each(KINDS)(
    "ticks on its own, pings a stale %s once with two processes, and a FLUSHALL re-pings nothing",
    async (kind) => {
      await makeWait(h.db, kind, T0);
      h.clock.set(new Date(T0.getTime() + 11 * MIN));
      const prefix = `hf-esc-${crypto.randomUUID().slice(0, 8)}`;
      let ticks = 0;
      const processes = await Promise.all([h.start(), h.start()]);
      const queues = await Promise.all(
        processes.map((p) =>
          startMonitorQueue({
            redisUrl: redis.url,
            prefix,
            log: p.ctx.log,
            everyMs: 100,
            onTick: async () => {
              ticks++;
              await p.monitor.tick();
            },
          }),
        ),
      );
      const waitTicks = async (n: number) => {
        const target = ticks + n;
        const deadline = Date.now() + 20_000;
        while (ticks < target) {
          if (Date.now() > deadline) throw new Error(`only ${ticks} ticks`);
          await new Promise((r) => setTimeout(r, 50));
        }
      };
      try {
        await waitTicks(5);
        const counts = () => [
          pingsTo(h.slack, BOB.slack, TITLE[kind]).length,
          pingsTo(h.telegram, BOB.telegram, TITLE[kind]).length,
        ];
        expect(counts()).toEqual([1, 1]);
        expect(await lastMonitorTickAt(h.db.store)).toEqual(h.clock.now);
        await redis.flushAll();
        // What the bot does when its watch finds Redis emptied (the `redis.rebuilt` hint).
        await Promise.all(queues.map((q) => q.ensureScheduled()));
        await waitTicks(5);
        expect(counts()).toEqual([1, 1]);
      } finally {
        for (const q of queues) await q.close();
      }
    },
  );
});
