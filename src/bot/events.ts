import { EventEmitter } from "node:events";

/**
 * In-process notifications between handlers and the parts that react to them (chat cards, the delivery
 * loop). They are hints for speed only: every reaction re-reads the database, and a missed event is made
 * up by polling, so nothing depends on an event being seen.
 */
export interface HoldfastEventMap {
  /** A run's approval state or packet version changed; its chat cards should be re-rendered. */
  "run.changed": [runId: string];
  /** New outbox items were committed; the delivery loop should look now. */
  "outbox.planned": [];
  /** An agent's or tenant's control record changed (pause, resume, drain). */
  "control.changed": [scope: string];
}

export class HoldfastEvents extends EventEmitter<HoldfastEventMap> {}
