import { startMonitorQueue } from "../queue/monitor";
import type { CardPublisher, Platform } from "./chat/types";
import type { HandlerContext } from "./context";
import { createEscalationMonitor, type EscalationMonitor } from "./escalation/monitor-tick";

export interface EscalationWiringOptions {
  publishers: Partial<Record<Platform, CardPublisher>>;
  publicUrl: string;
  redisUrl: string;
  prefix: string;
  everyMs: number;
}

export interface EscalationWiring {
  monitor: EscalationMonitor;
  stop(): Promise<void>;
}

/** The stale-wait monitor on its job scheduler; set again whenever Redis is found emptied. */
export async function startEscalations(
  ctx: HandlerContext,
  options: EscalationWiringOptions,
): Promise<EscalationWiring> {
  const monitor = createEscalationMonitor(ctx, options);
  const queue = await startMonitorQueue({
    redisUrl: options.redisUrl,
    prefix: options.prefix,
    log: ctx.log,
    everyMs: options.everyMs,
    onTick: () => monitor.tick(),
  });
  const onRebuilt = () =>
    void queue
      .ensureScheduled()
      .catch((error: Error) =>
        ctx.log.warn({ err: error.message }, "could not set the monitor's scheduler again; it is set at next start"),
      );
  ctx.events.on("redis.rebuilt", onRebuilt);
  return {
    monitor,
    async stop() {
      ctx.events.off("redis.rebuilt", onRebuilt);
      await queue.close();
    },
  };
}
