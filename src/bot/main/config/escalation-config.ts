import { z } from "zod";
import { parseDurationMs } from "../../../policy/duration";
import { DEFAULT_DELAYS, type EscalationSettings, NOTIFY_ROLES } from "../../../policy/escalation";
import { isClockTime } from "../../../policy/quiet-hours";
import { isValidTimeZone } from "../../../policy/schedule";

const Duration = z
  .union([z.string(), z.number().int().min(0)])
  .transform(String)
  .refine((v) => parseDurationMs(v) !== null, "a duration such as 30s, 4h or 1d")
  .transform((v) => parseDurationMs(v)!);

const ClockTime = z.string().refine(isClockTime, 'a time of day such as "22:00"');

/** The `escalation:` block of a tenant (defaults) or an agent, as in issue 15's example. */
export const EscalationBlock = z
  .object({
    approvalAfter: Duration.optional(),
    pausedAfter: Duration.optional(),
    reviewAfter: Duration.optional(),
    deliveryAfter: Duration.optional(),
    levels: z
      .array(
        z
          .object({
            after: Duration.optional(),
            notify: z.array(z.string().regex(/^[A-Za-z0-9_.-]+$/, "a role or a user name")).min(1),
          })
          .strict(),
      )
      .optional(),
    repeat: Duration.optional(),
    quietHours: z
      .object({
        tz: z.string().refine(isValidTimeZone, "an IANA time zone such as Europe/Berlin"),
        from: ClockTime,
        to: ClockTime,
      })
      .strict()
      .optional(),
  })
  .strict();
export type EscalationBlock = z.infer<typeof EscalationBlock>;

/**
 * An agent's settings: its own block over the tenant's, field by field (levels as a whole). Without levels
 * anywhere, an agent with a secondary manager has one level notifying them; one without has none.
 */
export function resolveEscalation(
  tenant: EscalationBlock | undefined,
  agent: EscalationBlock | undefined,
  hasSecondaryManager: boolean,
): EscalationSettings {
  const pick = <K extends keyof EscalationBlock>(key: K) => agent?.[key] ?? tenant?.[key];
  const levels = pick("levels") ?? (hasSecondaryManager ? [{ notify: ["secondaryManager"] }] : []);
  return {
    delays: {
      approval: pick("approvalAfter") ?? DEFAULT_DELAYS.approval,
      paused: pick("pausedAfter") ?? DEFAULT_DELAYS.paused,
      review: pick("reviewAfter") ?? DEFAULT_DELAYS.review,
      delivery: pick("deliveryAfter") ?? DEFAULT_DELAYS.delivery,
    },
    levels: levels.map((l) => ({ afterMs: l.after ?? null, notify: l.notify })),
    repeatMs: pick("repeat") ?? 0,
    quietHours: pick("quietHours") ?? null,
  };
}

/** The names `notify` lists that are neither a role nor a user of the tenant. */
export const unknownNotifyNames = (settings: EscalationSettings, users: ReadonlySet<string>): string[] =>
  settings.levels
    .flatMap((l) => l.notify)
    .filter((n) => !(NOTIFY_ROLES as readonly string[]).includes(n) && !users.has(n));
