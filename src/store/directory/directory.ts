import { type AgentSettings, agentSettingsOf } from "../../policy/agent-settings";
import { agentId, agentScope, tenantScope, userId } from "../../policy/ids";
import type { Standing } from "../../policy/roles";
import type { Db, Store, Tx } from "../connection/client";
import { rows } from "../connection/sql";

/** The directory as the store receives it: names resolved, keys already hashed. */
export interface DirectorySpec {
  tenants: TenantSpec[];
}
export interface TenantSpec {
  id: string;
  slackTeamId?: string;
  discordGuildId?: string;
  admins: string[];
  users: UserSpec[];
  agents: AgentSpec[];
}
export interface UserSpec {
  name: string;
  apiKeyHash?: string;
  /** Platform identities such as "slack:T0ACME:U0ADA", "discord:<guild>:<user>", "telegram:7000001". */
  identities: string[];
}
export interface AgentSpec {
  name: string;
  principal?: string;
  supervisors: string[];
  reviewers: string[];
  secondaryManager?: string;
  webhook?: string;
  agentKeyHash?: string;
  settings: AgentSettings;
}

/**
 * Makes the database match the config: upserts what is listed, removes users, identities and roles that
 * are no longer listed, and creates a RUNNING control record for each new tenant and agent. Existing
 * control records are never touched, so a restart keeps every pause.
 */
export async function syncDirectory(store: Store, spec: DirectorySpec): Promise<void> {
  await store.db.$transaction(
    async (tx) => {
      // Processes starting at once sync one after another instead of tripping over each other's rows.
      await store.sql.within(tx, function* (d) {
        if (d.directoryLock) yield* rows(d.directoryLock);
      });
      for (const tenant of spec.tenants) await syncTenant(tx, tenant);
    },
    { maxWait: 60_000, timeout: 60_000 },
  );
}

async function syncTenant(tx: Tx, tenant: TenantSpec): Promise<void> {
  const tenantFields = { slackTeamId: tenant.slackTeamId ?? null, discordGuildId: tenant.discordGuildId ?? null };
  await tx.tenant.upsert({
    where: { id: tenant.id },
    create: { id: tenant.id, ...tenantFields },
    update: tenantFields,
  });
  await ensureControl(tx, tenantScope(tenant.id), tenant.id, null);

  const userIds = tenant.users.map((u) => userId(tenant.id, u.name));
  await tx.identity.deleteMany({ where: { tenantId: tenant.id } });
  const gone = await tx.user.findMany({ where: { tenantId: tenant.id, id: { notIn: userIds } }, select: { id: true } });
  for (const user of gone) await endConsoleAccess(tx, user.id);
  await tx.user.deleteMany({ where: { tenantId: tenant.id, id: { notIn: userIds } } });
  for (const user of tenant.users) {
    const id = userId(tenant.id, user.name);
    const fields = { isAdmin: tenant.admins.includes(user.name), apiKeyHash: user.apiKeyHash ?? null };
    // A changed (or removed) key ends every console session the user opened with the old one, links included.
    const before = await tx.user.findUnique({ where: { id }, select: { apiKeyHash: true } });
    if (before && before.apiKeyHash !== fields.apiKeyHash) await endConsoleAccess(tx, id);
    await tx.user.upsert({
      where: { id },
      create: { id, tenantId: tenant.id, name: user.name, ...fields },
      update: fields,
    });
    for (const identity of user.identities)
      await tx.identity.create({ data: { id: identity, tenantId: tenant.id, userId: id } });
  }

  await syncAgents(tx, tenant);
}

/** Rows per statement in the agents' sync: well inside both databases' limits on bound values. */
const SYNC_CHUNK = 500;
const chunks = <T>(items: T[]): T[][] =>
  Array.from({ length: Math.ceil(items.length / SYNC_CHUNK) }, (_, i) =>
    items.slice(i * SYNC_CHUNK, (i + 1) * SYNC_CHUNK),
  );

/**
 * The tenant's agents, their roles and their control records, a chunk of rows per statement: a directory of
 * 10,000 agents took five statements each, one at a time, and ran past the transaction's 60 s (bench:load).
 * Only agents whose row differs from the file are updated, so a restart with an unchanged file writes no
 * agent; roles are written again as a whole; a control record is only ever created.
 */
async function syncAgents(tx: Tx, tenant: TenantSpec): Promise<void> {
  const wanted = tenant.agents.map((agent) => ({
    id: agentId(tenant.id, agent.name),
    tenantId: tenant.id,
    name: agent.name,
    principalId: agent.principal ? userId(tenant.id, agent.principal) : null,
    secondaryManagerId: agent.secondaryManager ? userId(tenant.id, agent.secondaryManager) : null,
    webhook: agent.webhook ?? null,
    agentKeyHash: agent.agentKeyHash ?? null,
    settings: JSON.stringify(agent.settings),
  }));
  const existing = new Map(
    (await tx.agent.findMany({ where: { tenantId: tenant.id } })).map((row) => [row.id, row] as const),
  );
  const fresh = wanted.filter((a) => !existing.has(a.id));
  const changed = wanted.filter((a) => {
    const row = existing.get(a.id);
    return row && (Object.keys(a) as Array<keyof typeof a>).some((field) => row[field] !== a[field]);
  });
  for (const chunk of chunks(fresh)) await tx.agent.createMany({ data: chunk });
  for (const { id, tenantId: _, name: __, ...fields } of changed)
    await tx.agent.update({ where: { id }, data: fields });

  const ids = wanted.map((a) => a.id);
  for (const chunk of chunks(ids)) await tx.agentRole.deleteMany({ where: { agentId: { in: chunk } } });
  const roles = tenant.agents.flatMap((agent) => {
    const id = agentId(tenant.id, agent.name);
    return [
      ...(agent.principal ? [{ user: agent.principal, role: "principal" }] : []),
      ...agent.supervisors.map((user) => ({ user, role: "supervisor" })),
      ...agent.reviewers.map((user) => ({ user, role: "reviewer" })),
    ].map(({ user, role }) => ({ agentId: id, userId: userId(tenant.id, user), role }));
  });
  for (const chunk of chunks(roles)) await tx.agentRole.createMany({ data: chunk });

  const scopes = new Map(ids.map((id) => [agentScope(id), id]));
  const controlled = new Set(
    (
      await tx.control.findMany({ where: { tenantId: tenant.id, agentId: { not: null } }, select: { scope: true } })
    ).map((c) => c.scope),
  );
  const missing = [...scopes].filter(([scope]) => !controlled.has(scope));
  for (const chunk of chunks(missing))
    await tx.control.createMany({ data: chunk.map(([scope, id]) => ({ scope, tenantId: tenant.id, agentId: id })) });
}

/** Ends every console session of a user and voids their unused links; the count of sessions ended. */
export async function endConsoleAccess(db: Pick<Db, "consoleSession" | "consoleLink">, userId: string) {
  await db.consoleLink.deleteMany({ where: { userId } });
  return (await db.consoleSession.deleteMany({ where: { userId } })).count;
}

async function ensureControl(tx: Tx, scope: string, tenantId: string, agent: string | null): Promise<void> {
  await tx.control.upsert({ where: { scope }, create: { scope, tenantId, agentId: agent }, update: {} });
}

export interface KnownUser {
  id: string;
  tenantId: string;
  name: string;
  isAdmin: boolean;
}

const KNOWN_USER_FIELDS = { id: true, tenantId: true, name: true, isAdmin: true } as const;

export async function findUserByKeyHash(db: Db, apiKeyHash: string): Promise<KnownUser | null> {
  return db.user.findUnique({ where: { apiKeyHash }, select: KNOWN_USER_FIELDS });
}

export async function findUserById(db: Db, id: string): Promise<KnownUser | null> {
  return db.user.findUnique({ where: { id }, select: KNOWN_USER_FIELDS });
}

export async function findUserByIdentity(db: Db, identity: string): Promise<KnownUser | null> {
  const found = await db.identity.findUnique({ where: { id: identity } });
  if (!found) return null;
  return db.user.findUnique({
    where: { id: found.userId },
    select: KNOWN_USER_FIELDS,
  });
}

export interface KnownAgent {
  id: string;
  tenantId: string;
  name: string;
  principalId: string | null;
  secondaryManagerId: string | null;
  webhook: string | null;
  settings: AgentSettings;
}

/** The Agent row's columns a KnownAgent is made of: the same, with the settings as stored JSON text. */
export function toKnownAgent(row: Omit<KnownAgent, "settings"> & { settings: string }): KnownAgent {
  return { ...row, settings: settingsFromText(row.settings) };
}

const parsedSettings = new Map<string, AgentSettings>();
const PARSED_SETTINGS_KEPT = 512;

/**
 * An agent's settings from their stored JSON text. Every chat click reads them with its run, and parsing and
 * validating them each time was about 25 µs of the main thread; they change only with the directory, so the
 * parsed value is kept by its text (the oldest of the last 512 texts goes first). Callers only read it.
 */
export function settingsFromText(text: string): AgentSettings {
  let settings = parsedSettings.get(text);
  if (!settings) {
    settings = agentSettingsOf(JSON.parse(text));
    if (parsedSettings.size >= PARSED_SETTINGS_KEPT) parsedSettings.delete(parsedSettings.keys().next().value!);
    parsedSettings.set(text, settings);
  }
  return settings;
}

/** An agent is only found inside the asking tenant: another tenant's agent does not exist for it. */
export async function findAgent(db: Db, tenantId: string, name: string): Promise<KnownAgent | null> {
  const row = await db.agent.findUnique({ where: { tenantId_name: { tenantId, name } } });
  return row ? toKnownAgent(row) : null;
}

export async function findAgentById(db: Db, id: string): Promise<KnownAgent | null> {
  const row = await db.agent.findUnique({ where: { id } });
  return row ? toKnownAgent(row) : null;
}

/** Every agent of every tenant, by id: one read where a lookup per agent would be one each (the start's). */
export async function allAgentsById(db: Db): Promise<Map<string, KnownAgent>> {
  const rows = await db.agent.findMany();
  return new Map(rows.map((row) => [row.id, toKnownAgent(row)]));
}

export async function findAgentByKeyHash(db: Db, agentKeyHash: string): Promise<KnownAgent | null> {
  const row = await db.agent.findUnique({ where: { agentKeyHash } });
  return row ? toKnownAgent(row) : null;
}

export async function standingOf(db: Db, user: KnownUser, agent: KnownAgent): Promise<Standing> {
  const roles = await db.agentRole.findMany({ where: { agentId: agent.id, userId: user.id }, select: { role: true } });
  return { isAdmin: user.isAdmin, agentRoles: roles.map((r) => r.role as Standing["agentRoles"][number]) };
}

export async function userName(db: Db, id: string | null): Promise<string | null> {
  if (!id) return null;
  const row = await db.user.findUnique({ where: { id }, select: { name: true } });
  return row?.name ?? id;
}
