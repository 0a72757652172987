import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { refusalWords, urlRefusal } from "../../../policy/addresses.mjs";
import { type AgentLimits, DEFAULT_LIMITS } from "../../../policy/agent-settings";
import { parseContract } from "../../../policy/delivery";
import { parseDurationMs } from "../../../policy/duration";
import { agentId } from "../../../policy/ids";
import type { DirectorySpec } from "../../../store/directory/directory";
import { ConfigError } from "./env";

/**
 * The directory file's outbound settings: the URLs Holdfast sends to (design.md section 11), each agent's
 * signing secret, and the quotas and retention windows. Kept beside directory-file.ts so the schema there
 * only names these fields.
 */

/** A URL Holdfast may send to: http(s), no credentials, no link-local or metadata address in any spelling. */
export const OutboundUrl = z.string().superRefine((text, ctx) => {
  const refusal = urlRefusal(text);
  if (refusal) ctx.addIssue({ code: "custom", message: `${text}: ${refusalWords(refusal)}` });
});

/** A destination's receiving contract; its lookup URL follows the same rule as every other address. */
export const Contract = z.string().superRefine((text, ctx) => {
  const contract = parseContract(text);
  if (!contract) {
    ctx.addIssue({
      code: "custom",
      message:
        "a receiving contract is 'none', 'key-retained <duration>' or 'unique-external-id', optionally followed by 'lookup <url>'",
    });
    return;
  }
  const refusal = contract.lookupUrl ? urlRefusal(contract.lookupUrl) : null;
  if (refusal) ctx.addIssue({ code: "custom", message: `lookup ${contract.lookupUrl}: ${refusalWords(refusal)}` });
});

const Duration = z.union([z.string(), z.number().int().positive()]).transform((value, ctx) => {
  const ms = typeof value === "number" ? value : parseDurationMs(value);
  if (!ms) ctx.addIssue({ code: "custom", message: "a duration such as '1s', '15m' or '7d' (or ms)" });
  return ms ?? 0;
});

/** Per-agent quotas; a tenant's `limits` apply to each of its agents unless the agent sets its own. */
export const LimitsSchema = z
  .object({ maxTriggers: z.number().int().min(1).max(1_000_000), minInterval: Duration })
  .partial()
  .strict();

export function resolveLimits(
  tenant: z.infer<typeof LimitsSchema> | undefined,
  agent: z.infer<typeof LimitsSchema> | undefined,
): AgentLimits {
  return {
    maxTriggers: agent?.maxTriggers ?? tenant?.maxTriggers ?? DEFAULT_LIMITS.maxTriggers,
    minIntervalMs: agent?.minInterval ?? tenant?.minInterval ?? DEFAULT_LIMITS.minIntervalMs,
  };
}

/** How long finished work is kept (top-level `retention:`). Pending, held and NEEDS_REVIEW work is never pruned. */
export const RetentionSchema = z.object({ delivered: Duration, audit: Duration }).partial().strict();

export interface RetentionSettings {
  /** Delivered occurrences, acknowledged and observed outbox items, done inbox events, chat buttons. */
  deliveredMs: number;
  /** The audit tables (pause/resume attempts, reconciliations) and failed or abandoned outbox items. */
  auditMs: number;
}

export function resolveRetention(raw: z.infer<typeof RetentionSchema> | undefined): RetentionSettings {
  return { deliveredMs: raw?.delivered ?? 7 * 86_400_000, auditMs: raw?.audit ?? 90 * 86_400_000 };
}

/** `whsec_` and base64 of 24 to 64 random bytes (the Standard Webhooks secret format). */
const SigningSecret = z.string().superRefine((text, ctx) => {
  if (!decodeSigningSecret(text))
    ctx.addIssue({ code: "custom", message: "a signing secret is 'whsec_' followed by base64 of 24 to 64 bytes" });
});

export const SigningFields = { signingSecret: SigningSecret.optional(), signingSecretFile: z.string().optional() };

function decodeSigningSecret(text: string): Buffer | null {
  const match = /^whsec_([A-Za-z0-9+/]+={0,2})$/.exec(text.trim());
  const key = match ? Buffer.from(match[1]!, "base64") : null;
  return key && key.length >= 24 && key.length <= 64 ? key : null;
}

/** The agent's signing key (the decoded secret), read from the file when one is named. Never logged. */
export function readSigningKey(
  agent: { signingSecret?: string; signingSecretFile?: string },
  baseDir: string,
  field: string,
): Buffer | undefined {
  if (agent.signingSecret && agent.signingSecretFile)
    throw new ConfigError(`${field}: give signingSecret or signingSecretFile, not both`);
  if (agent.signingSecret) return decodeSigningSecret(agent.signingSecret)!;
  if (!agent.signingSecretFile) return undefined;
  let text: string;
  try {
    text = fs.readFileSync(path.resolve(baseDir, agent.signingSecretFile), "utf8");
  } catch {
    throw new ConfigError(`${field}File: cannot read ${agent.signingSecretFile}`);
  }
  const key = decodeSigningSecret(text);
  if (!key) throw new ConfigError(`${field}File: the file does not hold 'whsec_' and base64 of 24 to 64 bytes`);
  return key;
}

/** The agents whose deliveries go out unsigned (said once per agent in the start log). */
export function unsignedAgents(directory: DirectorySpec & { signingKeys: ReadonlyMap<string, Buffer> }): string[] {
  return directory.tenants.flatMap((t) =>
    t.agents.map((a) => agentId(t.id, a.name)).filter((id) => !directory.signingKeys.has(id)),
  );
}
