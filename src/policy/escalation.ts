import { afterQuietHours, type QuietHours } from "./quiet-hours";

// What escalates, to whom and when (design.md section 7). Pure: the ledger and the clock are parameters.

export type EscalationKind = "approval" | "paused" | "review" | "delivery";
export const ESCALATION_KINDS: readonly EscalationKind[] = ["approval", "paused", "review", "delivery"];
export type EscalationState = "open" | "acknowledged" | "resolved";
export const ESCALATION_STATES: readonly EscalationState[] = ["open", "acknowledged", "resolved"];

/** The roles `notify` may name; anything else is a user's name. */
export const NOTIFY_ROLES = ["secondaryManager", "principal", "supervisors", "admins"] as const;
export type NotifyRole = (typeof NOTIFY_ROLES)[number];

/** An agent's escalation settings as configured (tenant defaults resolved in), before any item uses them. */
export interface EscalationSettings {
  delays: Record<EscalationKind, number>;
  /** Level 1 after the item's delay; each later level `afterMs` after the previous level's first ping. */
  levels: Array<{ afterMs: number | null; notify: string[] }>;
  /** Re-ping the current level every repeatMs until it is acknowledged; 0 = never. */
  repeatMs: number;
  quietHours: QuietHours | null;
}

export const DEFAULT_DELAYS: Record<EscalationKind, number> = {
  approval: 4 * 3_600_000,
  paused: 24 * 3_600_000,
  review: 3_600_000,
  delivery: 3_600_000,
};

/**
 * The snapshot an escalation keeps from its start: every level's delay and the user ids it notifies, so a
 * later config change neither re-pages it nor changes who is paged.
 */
export interface EscalationPolicy {
  levels: Array<{ afterMs: number; notify: string[] }>;
  repeatMs: number;
  quietHours: QuietHours | null;
}

/**
 * The policy for one item: level 1 waits the item's own delay (a run's escalateAfter wins, then level 1's
 * `after`, then the kind's configured delay); `resolve` turns roles and names into user ids.
 */
export function snapshotPolicy(
  settings: EscalationSettings,
  kind: EscalationKind,
  ownDelayMs: number | null,
  resolve: (notify: string[]) => string[],
): EscalationPolicy {
  const levels = settings.levels.map((level, i) => ({
    afterMs: i === 0 ? (ownDelayMs ?? level.afterMs ?? settings.delays[kind]) : (level.afterMs ?? 0),
    notify: resolve(level.notify),
  }));
  return { levels, repeatMs: settings.repeatMs, quietHours: settings.quietHours };
}

/** When level 1 falls due for an item waiting since `since` (null: nothing to escalate to). */
export function firstDueAt(policy: EscalationPolicy, since: Date): Date | null {
  const first = policy.levels[0];
  return first ? new Date(since.getTime() + first.afterMs) : null;
}

/** One ledger row: a level's ping (repeat 0) or a re-ping (1, 2, ...). */
export interface LedgerEntry {
  level: number;
  repeat: number;
  sentAt: Date;
}

export interface Step {
  level: number;
  repeat: number;
  /** When it fell due, before quiet hours. */
  dueAt: Date;
}

export type NextStep =
  | { kind: "send"; step: Step }
  /** Not due yet; `quiet` when it is due but held back by quiet hours until `until`. */
  | { kind: "wait"; step: Step; until: Date; quiet: boolean }
  | { kind: "done" };

/**
 * The next step from the ledger alone (never from process memory): the next level after its delay, or a
 * repeat of the current level unless it was acknowledged at that level, whichever falls due first.
 * `ackLevel` is the level the item was acknowledged at (null: never).
 */
export function nextStep(
  policy: EscalationPolicy,
  since: Date,
  ledger: readonly LedgerEntry[],
  ackLevel: number | null,
  now: Date,
): NextStep {
  const candidates: Step[] = [];
  const current = ledger.reduce((max, e) => Math.max(max, e.level), 0);
  if (current === 0) {
    const due = firstDueAt(policy, since);
    if (due) candidates.push({ level: 1, repeat: 0, dueAt: due });
  } else {
    const atLevel = ledger.filter((e) => e.level === current);
    const first = atLevel.find((e) => e.repeat === 0) ?? atLevel[0]!;
    const last = atLevel.reduce((a, b) => (b.repeat > a.repeat ? b : a));
    const next = policy.levels[current];
    if (next)
      candidates.push({ level: current + 1, repeat: 0, dueAt: new Date(first.sentAt.getTime() + next.afterMs) });
    if (policy.repeatMs > 0 && (ackLevel === null || ackLevel < current)) {
      candidates.push({
        level: current,
        repeat: last.repeat + 1,
        dueAt: new Date(last.sentAt.getTime() + policy.repeatMs),
      });
    }
  }
  if (candidates.length === 0) return { kind: "done" };
  // The earliest; on a tie the next level, which supersedes a repeat of the one before.
  const step = candidates.reduce((a, b) => (b.dueAt < a.dueAt || (+b.dueAt === +a.dueAt && b.level > a.level) ? b : a));
  const until = afterQuietHours(policy.quietHours, step.dueAt > now ? step.dueAt : now);
  if (step.dueAt <= now && until <= now) return { kind: "send", step };
  return { kind: "wait", step, until, quiet: step.dueAt <= now };
}

/** The state an escalation shows after a ping at `level`: acknowledged only while that level is acknowledged. */
export const stateAfterPing = (level: number, ackLevel: number | null): EscalationState =>
  ackLevel !== null && ackLevel >= level ? "acknowledged" : "open";
