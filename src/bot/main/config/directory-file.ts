import fs from "node:fs";
import path from "node:path";
import { load as parseYaml } from "js-yaml";
import { z } from "zod";
import type { AgentSettings } from "../../../policy/agent-settings";
import { agentId, identityKey } from "../../../policy/ids";
import { hashKey } from "../../../policy/key-hash";
import type { DirectorySpec, TenantSpec } from "../../../store/directory/directory";
import { ConfigError, DEFAULT_PORT } from "./env";
import { EscalationBlock, resolveEscalation, unknownNotifyNames } from "./escalation-config";
import {
  Contract,
  LimitsSchema,
  OutboundUrl,
  RetentionSchema,
  type RetentionSettings,
  readSigningKey,
  resolveLimits,
  resolveRetention,
  SigningFields,
} from "./outbound-config";

const Name = z.string().regex(/^[A-Za-z0-9_.-]+$/, "use letters, digits, '.', '_' or '-'");
const PlatformId = z.union([z.string().min(1), z.number().int()]).transform(String);

const UserSchema = z
  .object({
    apiKey: z.string().min(16, "an API key needs at least 16 characters").optional(),
    apiKeyFile: z.string().optional(),
    slack: PlatformId.optional(),
    discord: PlatformId.optional(),
    telegram: PlatformId.optional(),
  })
  .strict();

/** Per platform, the channel that gets the agent's approval cards instead of each reviewer's DM. */
const ReviewChannelSchema = z
  .object({
    slack: z.string().regex(/^[CGD][A-Z0-9]+$/, "a Slack channel id such as C0123ABCD"),
    // A snowflake is beyond a double's exact range, so it must be quoted in YAML.
    discord: z.string().regex(/^\d{15,21}$/, 'a Discord channel id in quotes, such as "1100000000000000300"'),
    telegram: z
      .union([z.string(), z.number().int()])
      .transform(String)
      .refine((id) => /^-?\d+$/.test(id), "a Telegram chat id (an integer; groups are negative)"),
  })
  .partial()
  .strict();

const AgentSchema = z
  .object({
    principal: Name.optional(),
    supervisors: z.array(Name).default([]),
    reviewers: z.array(Name).default([]),
    secondaryManager: Name.optional(),
    webhook: OutboundUrl.optional(),
    agentKey: z.string().min(16, "an agent key needs at least 16 characters").optional(),
    agentKeyFile: z.string().optional(),
    /** The agent key only mints short-lived tokens (POST /v1/tokens); every other call takes a token. */
    tokensOnly: z.boolean().optional(),
    /** Where approved actions may go, each with its receiving contract (design.md section 6). */
    destinations: z.record(OutboundUrl, Contract).default({}),
    ...SigningFields,
    limits: LimitsSchema.optional(),
    reviewChannel: ReviewChannelSchema.optional(),
    /** Escalation levels and delays (issue 15), over the tenant's `escalation:` defaults. */
    escalation: EscalationBlock.optional(),
    /** Per platform, the channel that gets the agent's escalation pings instead of each target's DM. */
    escalationChannel: ReviewChannelSchema.optional(),
    /** The named checkpoints a run of this agent moves through, in order. */
    checkpoints: z
      .array(Name)
      .min(1)
      .refine((list) => new Set(list).size === list.length, "checkpoints must be distinct")
      .optional(),
  })
  // Strict like every level: a misspelled field (`principle:`) stops the start instead of being ignored.
  .strict();

const TenantSchema = z
  .object({
    slack: z
      .object({ teamId: z.string().min(1) })
      .strict()
      .optional(),
    discord: z.object({ guildId: PlatformId }).strict().optional(),
    admins: z.array(Name).default([]),
    users: z.record(Name, UserSchema).default({}),
    agents: z.record(Name, AgentSchema).default({}),
    limits: LimitsSchema.optional(),
    escalation: EscalationBlock.optional(),
  })
  .strict();

const FileSchema = z.object({ tenants: z.record(Name, TenantSchema), retention: RetentionSchema.optional() }).strict();

type TenantFile = z.infer<typeof TenantSchema>;

/** The directory plus what is not synced into the database: signing keys (secrets) and retention. */
export interface DirectoryFile extends DirectorySpec {
  /** Agent id -> the decoded Standard Webhooks key; agents without one are absent. */
  signingKeys: Map<string, Buffer>;
  retention: RetentionSettings;
}

/**
 * Loads the directory YAML, validates it and hashes its keys. Errors name the offending field. `${PORT}` in
 * any value is the port the bot listens on (`PORT`, default 3000), so the example's demo receiver, one of the
 * bot's own routes, follows the port it runs on.
 */
export function loadDirectoryFile(file: string, port = DEFAULT_PORT): DirectoryFile {
  let raw: unknown;
  try {
    // js-yaml rather than yaml: a directory of 10,000 agents (3.6 MB) parsed in about a tenth of the time
    // (1.2 s against 9.6 s on a loaded 2-core machine) and left 16 MB of garbage instead of 128, which the
    // process's heap otherwise kept committed for its life.
    raw = parseYaml(fs.readFileSync(file, "utf8"));
  } catch (error) {
    throw new ConfigError(`${file}: ${(error as Error).message}`);
  }
  return parseDirectory(withPort(raw, port), path.dirname(file), file);
}

/** What the directory file writes for the port the bot listens on. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: the file's own placeholder, not a template
export const PORT_PLACEHOLDER = "${PORT}";

/** Every `${PORT}` in the file's keys and values, written as the listening port. */
function withPort(raw: unknown, port: number): unknown {
  const put = (text: string) => text.replaceAll(PORT_PLACEHOLDER, String(port));
  if (typeof raw === "string") return put(raw);
  if (Array.isArray(raw)) return raw.map((v) => withPort(v, port));
  if (raw && typeof raw === "object")
    return Object.fromEntries(Object.entries(raw).map(([k, v]) => [put(k), withPort(v, port)]));
  return raw;
}

export function parseDirectory(raw: unknown, baseDir: string, label = "config"): DirectoryFile {
  const parsed = FileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    // An unknown key is named in full (`tenants.acme.agents.a.principle`), so a typo is found at once.
    const path = issue.code === "unrecognized_keys" ? [...issue.path, issue.keys[0]!] : issue.path;
    const field = path.join(".") || "(root)";
    const message = issue.code === "unrecognized_keys" ? "unknown field (misspelled?)" : issue.message;
    throw new ConfigError(`${label}: ${field}: ${message}`);
  }
  const signingKeys = new Map<string, Buffer>();
  const tenants = Object.entries(parsed.data.tenants).map(([id, t]) =>
    toTenantSpec(id, t, baseDir, label, signingKeys),
  );
  rejectSharedIdentities(tenants, label);
  return { tenants, signingKeys, retention: resolveRetention(parsed.data.retention) };
}

function readKey(
  inline: string | undefined,
  file: string | undefined,
  baseDir: string,
  field: string,
): string | undefined {
  if (inline && file) throw new ConfigError(`${field}: give apiKey or apiKeyFile, not both`);
  if (!file) return inline;
  try {
    return fs.readFileSync(path.resolve(baseDir, file), "utf8").trim();
  } catch {
    throw new ConfigError(`${field}File: cannot read ${file}`);
  }
}

function toTenantSpec(
  id: string,
  t: TenantFile,
  baseDir: string,
  label: string,
  signingKeys: Map<string, Buffer>,
): TenantSpec {
  const known = new Set(Object.keys(t.users));
  const mustKnow = (name: string | undefined, field: string) => {
    if (name !== undefined && !known.has(name))
      throw new ConfigError(`${label}: tenants.${id}.${field}: unknown user '${name}'`);
  };
  for (const [i, name] of t.admins.entries()) mustKnow(name, `admins.${i}`);
  const users = Object.entries(t.users).map(([name, u]) => {
    const key = readKey(u.apiKey, u.apiKeyFile, baseDir, `${label}: tenants.${id}.users.${name}.apiKey`);
    const identities = [
      ...(u.slack && t.slack ? [identityKey({ platform: "slack", workspaceId: t.slack.teamId, userId: u.slack })] : []),
      ...(u.discord && t.discord
        ? [identityKey({ platform: "discord", workspaceId: t.discord.guildId, userId: u.discord })]
        : []),
      ...(u.telegram ? [identityKey({ platform: "telegram", userId: u.telegram })] : []),
      identityKey({ platform: "web", workspaceId: id, userId: name }),
    ];
    return { name, apiKeyHash: key ? hashKey(key) : undefined, identities };
  });
  const agents = Object.entries(t.agents).map(([name, a]) => {
    const at = `agents.${name}`;
    mustKnow(a.principal, `${at}.principal`);
    mustKnow(a.secondaryManager, `${at}.secondaryManager`);
    for (const [i, u] of a.supervisors.entries()) mustKnow(u, `${at}.supervisors.${i}`);
    for (const [i, u] of a.reviewers.entries()) mustKnow(u, `${at}.reviewers.${i}`);
    const { principal, supervisors, reviewers, secondaryManager, webhook, agentKey, agentKeyFile, ...rest } = a;
    const { signingSecret, signingSecretFile, limits, destinations, checkpoints, reviewChannel } = rest;
    const escalation = resolveEscalation(t.escalation, rest.escalation, secondaryManager !== undefined);
    for (const name of unknownNotifyNames(escalation, known))
      throw new ConfigError(`${label}: tenants.${id}.${at}.escalation.levels: unknown role or user '${name}'`);
    const key = readKey(agentKey, agentKeyFile, baseDir, `${label}: tenants.${id}.${at}.agentKey`);
    const signingKey = readSigningKey(
      { signingSecret, signingSecretFile },
      baseDir,
      `${label}: tenants.${id}.${at}.signingSecret`,
    );
    if (signingKey) signingKeys.set(agentId(id, name), signingKey);
    return {
      name,
      principal,
      supervisors,
      reviewers,
      secondaryManager,
      webhook,
      agentKeyHash: key ? hashKey(key) : undefined,
      settings: {
        destinations,
        checkpoints: checkpoints ?? [],
        reviewChannel: reviewChannel ?? {},
        escalation,
        escalationChannel: rest.escalationChannel ?? {},
        limits: resolveLimits(t.limits, limits),
        tokensOnly: rest.tokensOnly ?? false,
      } satisfies AgentSettings,
    };
  });
  return { id, slackTeamId: t.slack?.teamId, discordGuildId: t.discord?.guildId, admins: t.admins, users, agents };
}

/** One platform identity (and one key) maps to exactly one user. */
function rejectSharedIdentities(tenants: TenantSpec[], label: string): void {
  const seen = new Map<string, string>();
  for (const t of tenants) {
    for (const u of t.users) {
      for (const claim of [...u.identities, ...(u.apiKeyHash ? [`key:${u.apiKeyHash}`] : [])]) {
        const owner = `tenants.${t.id}.users.${u.name}`;
        const other = seen.get(claim);
        const what = claim.startsWith("key:") ? "API key" : `identity ${claim}`;
        if (other) throw new ConfigError(`${label}: ${owner}: ${what} is already used by ${other}`);
        seen.set(claim, owner);
      }
    }
  }
}
