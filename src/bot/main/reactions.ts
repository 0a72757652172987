import { warnUnlessOutage } from "../../queue/database-watch";
import type { HandlerContext } from "../app/context";
import type { HoldfastEventMap } from "../app/events";

/**
 * Every in-process event and what reacts to it, in one table. Events are hints for speed only (app/events.ts):
 * each reaction re-reads the database, and what a missed event would have done is made up by a poll, a sweep
 * or the next start. The wiring modules supply the reactors; only this file says which event reaches which.
 */
export interface Reactors {
  /** Approval expiry jobs (approvals-wiring.ts). */
  expiry: { scheduleRun(runId: string): Promise<void>; rebuild(): Promise<void> };
  /** Approval cards in chat (chat-wiring.ts, the chat surface's card sync). */
  cards: { runChanged(runId: string): void };
  /** The stale-wait monitor (escalation-wiring.ts). */
  escalations: { lookSoon(): void; scheduleAgain(): Promise<void> };
  /** Triggers, control jobs, releases and the delivery loop (held-wiring.ts). */
  held: {
    triggerChanged(triggerId: string): Promise<void>;
    releaseOpened(releaseId: string): Promise<void>;
    controlChanged(scope: string): Promise<void>;
    eventReceived(agentId: string): Promise<void>;
    nudgeDelivery(): void;
  };
  /** This process's maintenance windows (maintenance-start.ts). */
  maintenance: { windowsChanged(): void };
  /** `/metrics` counters fed by the bus (metrics/registry.ts). */
  metrics: { escalationSent(level: number): void; escalationSuppressed(reason: string): void };
}

type Reaction<E extends keyof HoldfastEventMap> = ((...args: HoldfastEventMap[E]) => unknown) | undefined;
type ReactionTable = { [E in keyof HoldfastEventMap]: Array<[name: string, reaction: Reaction<E>]> };

/** The table itself. A part not wired (a test harness starts only some) leaves its rows empty. */
function reactionTable(r: Partial<Reactors>): ReactionTable {
  return {
    "run.changed": [
      ["approval cards are synced", r.cards?.runChanged],
      ["the run's expiry job is (re)scheduled", r.expiry?.scheduleRun],
      ["the monitor looks soon", r.escalations?.lookSoon],
    ],
    "control.changed": [
      ["held jobs follow the control (drain, auto-resume)", r.held?.controlChanged],
      ["the monitor looks soon", r.escalations?.lookSoon],
    ],
    "maintenance.changed": [["this process looks at its maintenance windows now", r.maintenance?.windowsChanged]],
    "outbox.planned": [["the delivery loop looks now", r.held?.nudgeDelivery]],
    "release.opened": [["the release job starts", r.held?.releaseOpened]],
    "trigger.changed": [["the trigger's job scheduler is set or removed", r.held?.triggerChanged]],
    "inbox.received": [["the agent's event queue moves", r.held?.eventReceived]],
    "redis.rebuilt": [
      ["expiry jobs are rebuilt", r.expiry?.rebuild],
      ["the monitor's scheduler is set again", r.escalations?.scheduleAgain],
    ],
    "escalation.sent": [["counted in /metrics", r.metrics?.escalationSent]],
    "escalation.suppressed": [["counted in /metrics", r.metrics?.escalationSuppressed]],
  };
}

/**
 * Subscribes the given reactors by the table; returns the unsubscribe. A reaction that fails is logged and
 * left: the database still holds the truth, and the next poll, sweep or start does what it would have done.
 */
export function react(ctx: Pick<HandlerContext, "events" | "log" | "store">, reactors: Partial<Reactors>): () => void {
  const table = reactionTable(reactors);
  const offs: Array<() => void> = [];
  for (const event of Object.keys(table) as Array<keyof HoldfastEventMap>) {
    for (const [name, reaction] of table[event] as Array<[string, ((...args: unknown[]) => unknown) | undefined]>) {
      if (!reaction) continue;
      const listener = (...args: unknown[]) => {
        const result = reaction(...args);
        if (result instanceof Promise)
          result.catch((error: Error) =>
            warnUnlessOutage(ctx.store, ctx.log, error, `after ${event}: ${name} failed`, { event }),
          );
      };
      ctx.events.on(event, listener as never);
      offs.push(() => ctx.events.off(event, listener as never));
    }
  }
  return () => {
    for (const off of offs.splice(0)) off();
  };
}
