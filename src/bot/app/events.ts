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
  /** Redis was found emptied; the held-work jobs are rebuilt, and every other scheduler rebuilds its own. */
  "redis.rebuilt": [];
  /** An agent's or tenant's control record changed (pause, resume, drain). */
  "control.changed": [scope: string];
  /** A release record was committed (a resume, or recovery of missed occurrences): start its job. */
  "release.opened": [releaseId: string];
  /** A trigger was registered, changed or deleted: (re)schedule or remove its job scheduler. */
  "trigger.changed": [triggerId: string];
  /** An inbound event was stored: the agent's ordered event queue may move. */
  "inbox.received": [agentId: string];
  /** A maintenance window was opened or ended: every process looks at the windows that apply to it. */
  "maintenance.changed": [];
  "escalation.sent": [level: number];
  "escalation.suppressed": [reason: string];
}

export class HoldfastEvents extends EventEmitter<HoldfastEventMap> {}
