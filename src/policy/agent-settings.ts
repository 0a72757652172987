import { z } from "zod";
import { DEFAULT_DELAYS, type EscalationSettings } from "./escalation";

/**
 * What the directory file says about an agent beyond its people: parsed once from the config file, stored as
 * JSON on the agent, and parsed back into this type when the agent is read, so no caller reads a JSON bag.
 */
export interface AgentSettings {
  /** Where its approved actions and triggers may post, each with its receiving contract. */
  destinations: Record<string, string>;
  /** The named checkpoints its runs move through, in order (empty: none declared). */
  checkpoints: string[];
  /** Per platform, the channel that gets its approval cards instead of each reviewer's DM. */
  reviewChannel: Partial<Record<"slack" | "discord" | "telegram", string>>;
  /** Its escalation levels and delays (tenant defaults resolved in). */
  escalation: EscalationSettings;
  /** Per platform, the channel that gets its escalation pings instead of each target's DM. */
  escalationChannel: Partial<Record<"slack" | "discord" | "telegram", string>>;
  /** Its quotas (the tenant's and its own `limits:`, resolved at load). */
  limits: AgentLimits;
  /** Its long-lived key only mints short-lived tokens (POST /v1/tokens); everything else takes a token. */
  tokensOnly: boolean;
}

export interface AgentLimits {
  maxTriggers: number;
  minIntervalMs: number;
}

export const DEFAULT_LIMITS: AgentLimits = { maxTriggers: 1_000, minIntervalMs: 1_000 };

const Channels = z
  .object({ slack: z.string(), discord: z.string(), telegram: z.coerce.string() })
  .partial()
  .default({});

const Escalation = z
  .object({
    delays: z.object({ approval: z.number(), paused: z.number(), review: z.number(), delivery: z.number() }),
    levels: z.array(z.object({ afterMs: z.number().nullable(), notify: z.array(z.string()) })),
    repeatMs: z.number(),
    quietHours: z.object({ tz: z.string(), from: z.string(), to: z.string() }).nullable(),
  })
  .default({ delays: DEFAULT_DELAYS, levels: [], repeatMs: 0, quietHours: null });

const Stored = z.object({
  destinations: z.record(z.string(), z.string()).default({}),
  checkpoints: z.array(z.string()).default([]),
  reviewChannel: Channels,
  escalation: Escalation,
  escalationChannel: Channels,
  limits: z.object({ maxTriggers: z.number(), minIntervalMs: z.number() }).default(DEFAULT_LIMITS),
  tokensOnly: z.boolean().default(false),
});

/** The settings as stored (written by the directory sync from validated config); absent fields default. */
export const agentSettingsOf = (stored: unknown): AgentSettings => Stored.parse(stored ?? {});

export const NO_SETTINGS: AgentSettings = agentSettingsOf({});
