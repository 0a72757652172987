import { warnUnlessOutage } from "../../queue/database-watch";
import { startMonitorQueue } from "../../queue/monitor";
import type { HandlerContext } from "../app/context";
import { createEscalationMonitor, type EscalationMonitor } from "../app/escalation/monitor-tick";
import { chatPings } from "../surfaces/chat/ping-card";
import type { CardPublisher, Platform } from "../surfaces/chat/types";
import { react } from "./reactions";

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

/** The monitor pinging through the chat surface: its publishers post the chat surface's ping cards. */
export const createChatEscalationMonitor = (
  ctx: HandlerContext,
  options: Pick<EscalationWiringOptions, "publishers" | "publicUrl">,
): EscalationMonitor =>
  createEscalationMonitor(ctx, { publishers: options.publishers, render: chatPings(options.publicUrl) });

/** Changes that come together (a release, a burst of decisions) are looked at in one tick. */
const HINT_DELAY_MS = 250;

/** The stale-wait monitor on its job scheduler; set again whenever Redis is found emptied. */
export async function startEscalations(
  ctx: HandlerContext,
  options: EscalationWiringOptions,
): Promise<EscalationWiring> {
  const monitor = createChatEscalationMonitor(ctx, options);
  // A tick the lost database broke is part of the outage the watch reports, not a line of its own.
  const tickQuietly = () =>
    monitor.tick().catch((error: Error) => warnUnlessOutage(ctx.store, ctx.log, error, "monitor tick failed"));
  const queue = await startMonitorQueue({
    redisUrl: options.redisUrl,
    prefix: options.prefix,
    log: ctx.log,
    everyMs: options.everyMs,
    onTick: () => tickQuietly(),
  });
  // A decision, a resume or a reconcile is a hint to look soon, so a resolved item's pings are settled within
  // a moment rather than at the next scheduled tick. Only a hint: the tick reads everything from the database.
  let soon: NodeJS.Timeout | undefined;
  const lookSoon = () => {
    soon ??= setTimeout(() => {
      soon = undefined;
      void tickQuietly();
    }, HINT_DELAY_MS);
  };
  // A scheduler not set again after a Redis loss is set at the next start.
  const stopReacting = react(ctx, { escalations: { lookSoon, scheduleAgain: () => queue.ensureScheduled() } });
  return {
    monitor,
    async stop() {
      clearTimeout(soon);
      stopReacting();
      await queue.close();
    },
  };
}
