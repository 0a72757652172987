/**
 * Every id Holdfast builds, each with its make and, where code needs one back, its parse. Ids are built
 * here only: a second spelling of a key is a second, drifting rule.
 */

/** Users and agents are named within their tenant: "<tenant>:<name>". */
export const userId = (tenantId: string, name: string) => `${tenantId}:${name}`;
export const agentId = (tenantId: string, name: string) => `${tenantId}:${name}`;
/** The agent's name back from its id (tenant names never contain ':'). */
export const agentNameOf = (id: string) => id.slice(id.indexOf(":") + 1);

/**
 * A person's identity on a chat platform, the key of their Identity row: "slack:<team>:<user>",
 * "discord:<guild>:<user>", "telegram:<user>" (a Telegram user id is global) and, for the console's chat box,
 * "web:<tenant>:<user name>". Platform ids and tenant names never contain ':', so the first two ':' split it.
 */
export type IdentityParts =
  | { platform: "telegram"; userId: string }
  | { platform: "slack" | "discord" | "web"; workspaceId: string; userId: string };
export const identityKey = (identity: IdentityParts): string =>
  identity.platform === "telegram"
    ? `telegram:${identity.userId}`
    : `${identity.platform}:${identity.workspaceId}:${identity.userId}`;
export function parseIdentity(key: string): IdentityParts | null {
  const [platform, first, ...rest] = key.split(":");
  if (first === undefined || first === "") return null;
  if (platform === "telegram") return rest.length === 0 ? { platform, userId: first } : null;
  if (platform !== "slack" && platform !== "discord" && platform !== "web") return null;
  const userId = rest.join(":");
  return userId ? { platform, workspaceId: first, userId } : null;
}

/** Control records: one per agent ("agent:<agentId>") and one per tenant ("tenant:<tenantId>"). */
export const agentScope = (id: string) => `agent:${id}`;
export const tenantScope = (id: string) => `tenant:${id}`;
/** The control record of a deployment-wide maintenance window (its hold on every agent's outbound work). */
export const DEPLOYMENT_SCOPE = "deployment";
export type ParsedScope = { kind: "agent"; agentId: string } | { kind: "tenant"; tenantId: string };
export function parseScope(scope: string): ParsedScope | null {
  if (scope.startsWith("agent:")) return { kind: "agent", agentId: scope.slice("agent:".length) };
  if (scope.startsWith("tenant:")) return { kind: "tenant", tenantId: scope.slice("tenant:".length) };
  return null;
}

/** A trigger: "<agentId>:<key>". */
export const triggerId = (agent: string, key: string) => `${agent}:${key}`;
/** The trigger's key back from its id, given its agent. */
export const triggerKeyOf = (agent: string, trigger: string) => trigger.slice(agent.length + 1);

/** An occurrence's stable key, also its Idempotency-Key when delivered on its own. */
export const occurrenceKey = (agent: string, triggerKey: string, dueAt: Date): string =>
  `${agent}:${triggerKey}:${dueAt.toISOString()}`;

/**
 * A coalesced release delivery: "<agent>:<key>:release:<releaseId>" for a release's first delivery of the
 * trigger, then ":2", ":3", ... for rows that arrived after that delivery was planned (a later step of the
 * same release): a row is never marked into a delivery that was planned already.
 */
export const coalescedKey = (agent: string, triggerKey: string, releaseId: string, visit = 1): string =>
  `${agent}:${triggerKey}:release:${releaseId}${visit > 1 ? `:${visit}` : ""}`;

/** An inbound event's delivery to its agent. */
export const eventDeliveryKey = (agent: string, eventId: string) => `${agent}:event:${eventId}`;

/** An approved action's stable key: "<run>:<version>:<operation>". */
export const actionKey = (runId: string, version: number, operation: string): string =>
  `${runId}:${version}:${operation}`;

/** The lease of a release being worked: one process at a time works it. */
export const releaseLeaseName = (releaseId: string) => `release:${releaseId}`;
/** The lease of the Redis-loss rebuild: one process of the deployment does it. */
export const REBUILD_LEASE = "rebuild";

/**
 * A delivery lane: one agent's items to one destination go one after another. The claim's SQL spells the
 * same rule (store/outbox/claim.ts); everything in code names a lane by this key.
 */
export const laneOf = (agentId: string, destination: string): string => `${agentId}|${destination}`;

/**
 * BullMQ custom job ids may not contain ':', which every agent id does. Two escapes are deployed and stay:
 * a job id is the deduplication key of a job already waiting in Redis, so a new spelling would add a second
 * job beside each old one. Control jobs join their parts with '|' and write ':' as '~'.
 */
export const jobId = (...parts: string[]): string => parts.join("|").replaceAll(":", "~");
/**
 * A run's expiry job, "expire.<run, URI-encoded, ':' as %3A>.<deadline millis>": the deadline is part of the
 * id so a changed deadline gets its own job (see `jobId` for why this escape is not that one).
 */
export const expiryJobId = (runId: string, deadlineMs: number): string =>
  `expire.${encodeURIComponent(runId).replaceAll(":", "%3A")}.${deadlineMs}`;
export const schedulerId = (trigger: string): string => `trigger:${trigger}`;
/** The due time a job scheduler's job stands for: BullMQ ends its id with the scheduled millis. */
export function scheduledMillis(job: { id?: string; timestamp: number; delay: number }): number {
  const tail = job.id?.split(":").pop();
  const millis = tail ? Number(tail) : Number.NaN;
  return Number.isFinite(millis) && millis > 0 ? millis : job.timestamp + job.delay;
}

/** A console chat box: one conversation per person and agent, "<userId>:<agent>" (userId is "<tenant>:<name>"). */
export const webChannel = (userId: string, agentName: string) => `${userId}:${agentName}`;
/** The agent a console conversation is with. */
export const webChannelAgent = (channel: string) => channel.slice(channel.lastIndexOf(":") + 1);
/** The item an escalation is about: "<kind>:<subject>" (a run, an agent, an outbox key). */
export const escalationItemKey = (kind: string, subject: string) => `${kind}:${subject}`;
/** An escalation's id, from random url-safe characters: "esc_<random>". */
export const escalationId = (random: string) => `esc_${random}`;
/** The monitor's job scheduler: one per deployment (every process upserts the same one). */
export const MONITOR_SCHEDULER = "escalation-monitor";
/** The deployment setting that holds the monitor's last tick time. */
export const MONITOR_TICK_SETTING = "monitor.lastTickAt";

/**
 * Run ids are scoped per tenant (design.md section 11): the id a caller gives (or is given) is stored as
 * `<tenant>:<id>`, so an id used in one tenant neither blocks nor reveals another tenant's. Every id that
 * enters through the API or an event is made into a key here, and every id shown is parsed back here.
 * Tenant names never contain ':', so the first ':' ends the tenant.
 */
export const runKey = (tenantId: string, id: string): string => `${tenantId}:${id}`;

/**
 * The id a tenant knows a stored run by. A run stored before ids were scoped has no tenant prefix and is
 * shown as stored.
 */
export const runName = (tenantId: string, key: string): string =>
  key.startsWith(`${tenantId}:`) ? key.slice(tenantId.length + 1) : key;
