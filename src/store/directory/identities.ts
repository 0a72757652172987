import { parseIdentity } from "../../policy/ids";
import { type DecisionFacts, FACTS_COLUMNS, FACTS_JOINS, type FactsRow, factsOf } from "../approvals/decisions";
import { type RawButtonRow, rawToButton, type StoredButton } from "../chat/buttons";
import type { Db, Store } from "../connection/client";
import { rows, sqlText } from "../connection/sql";
import type { KnownAgent, KnownUser } from "./directory";
import { findUserByIdentity, toKnownAgent } from "./directory";

const BUTTON_COLUMNS = `b."id" AS "bId", b."tenantId" AS "bTenantId", b."agentId" AS "bAgentId", b."action" AS "bAction",
  b."payload" AS "bPayload", b."requestedBy" AS "bRequestedBy", b."createdAt" AS "bCreatedAt"`;

/**
 * The caller: the workspace's tenant (Slack team or Discord guild `column`), the identity's user. With a
 * button: that button and, when it names a run, the run's decision facts (`FACTS_COLUMNS`).
 */
const callerIn = (column: "slackTeamId" | "discordGuildId" | null, withButton: boolean) =>
  sqlText(
    (d) => `SELECT ${column ? 'w."id"' : "NULL"} AS "workspaceTenant",
    u."id" AS "uId", u."tenantId" AS "uTenantId", u."name" AS "uName", u."isAdmin" AS "uIsAdmin"
    ${withButton ? `, ${BUTTON_COLUMNS}, ${FACTS_COLUMNS}` : ""}
  FROM (SELECT 1 AS "one") AS x
  ${column ? `LEFT JOIN "Tenant" w ON w."${column}" = ?` : ""}
  LEFT JOIN "Identity" i ON i."id" = ?
  LEFT JOIN "User" u ON u."id" = i."userId"
  ${withButton ? `LEFT JOIN "ChatButton" b ON b."id" = ? LEFT JOIN "Run" r ON r."id" = ${d.jsonText('b."payload"', "runId")} ${FACTS_JOINS}` : ""}`,
  );
const CALLER = {
  slack: callerIn("slackTeamId", false),
  discord: callerIn("discordGuildId", false),
  none: callerIn(null, false),
};
const CALLER_AND_BUTTON = {
  slack: callerIn("slackTeamId", true),
  discord: callerIn("discordGuildId", true),
  none: callerIn(null, true),
};

/** Who a platform identity is, and which tenant its workspace belongs to, as one read. */
export interface Caller {
  /** The tenant configured for the workspace; null when none is (only asked for with a workspace). */
  workspaceTenant: string | null;
  user: KnownUser | null;
}

type CallerRow = {
  workspaceTenant: string | null;
  uId: string | null;
  uTenantId: string;
  uName: string;
  uIsAdmin: unknown;
};

const toCaller = (row: CallerRow | undefined): Caller => ({
  workspaceTenant: row?.workspaceTenant ?? null,
  user:
    row && row.uId !== null
      ? { id: row.uId, tenantId: row.uTenantId, name: row.uName, isAdmin: row.uIsAdmin === true || row.uIsAdmin === 1 }
      : null,
});

/**
 * The user an identity key maps to and, with `workspace`, the tenant of that Slack team or Discord guild: one
 * statement where they were three (tenant, identity, user).
 */
export async function findCaller(
  store: Store,
  identity: string,
  workspace: { platform: "slack" | "discord"; id: string } | null,
): Promise<Caller> {
  const [row] = await store.sql.read(function* (d) {
    return yield* rows<CallerRow>(
      CALLER[workspace?.platform ?? "none"](d),
      ...(workspace ? [workspace.id, identity] : [identity]),
    );
  });
  return toCaller(row);
}

type CallerButtonRow = CallerRow &
  FactsRow & { [K in keyof RawButtonRow as `b${Capitalize<K>}`]: RawButtonRow[K] | null };

/**
 * `findCaller`, the stored button a click names (null when there is none) and, when the button names a run,
 * that run's decision facts for the click's `eventId` (null otherwise), in the same statement: a click's
 * caller, button and run were three round trips on PostgreSQL.
 */
export async function findCallerAndButton(
  store: Store,
  identity: string,
  workspace: { platform: "slack" | "discord"; id: string } | null,
  click: { buttonId: string; eventId: string },
): Promise<Caller & { button: StoredButton | null; facts: DecisionFacts | null }> {
  const [row] = await store.sql.read(function* (d) {
    return yield* rows<CallerButtonRow>(
      CALLER_AND_BUTTON[workspace?.platform ?? "none"](d),
      ...(workspace ? [workspace.id] : []),
      identity,
      click.buttonId,
      click.eventId,
    );
  });
  const button =
    row && row.bId !== null
      ? rawToButton({
          id: row.bId,
          tenantId: row.bTenantId!,
          agentId: row.bAgentId,
          action: row.bAction!,
          payload: row.bPayload!,
          requestedBy: row.bRequestedBy,
          createdAt: row.bCreatedAt,
        })
      : null;
  const facts = row && row.id !== null ? factsOf(row, click.eventId) : null;
  return { ...toCaller(row), button, facts };
}

/**
 * A Discord DM carries no guild, so the user is found by their Discord user id across configured guilds.
 * Config validation makes a platform identity belong to one user; if two guilds still claimed the same
 * person, the answer would be ambiguous and nobody is returned.
 */
export async function findDiscordUserInAnyGuild(db: Db, discordUserId: string): Promise<KnownUser | null> {
  const rows = await db.identity.findMany({
    where: { id: { startsWith: "discord:", endsWith: `:${discordUserId}` } },
    take: 2,
  });
  if (rows.length !== 1) return null;
  return findUserByIdentity(db, rows[0]!.id);
}

/** Every agent of a tenant, by name, in one query (a chat command picks its target among them). */
export async function listTenantAgents(db: Db, tenantId: string): Promise<KnownAgent[]> {
  const rows = await db.agent.findMany({ where: { tenantId }, orderBy: { name: "asc" } });
  return rows.map(toKnownAgent);
}

/** Chat identities of these users, as (user, platform, the platform's own user id). Web identities are left out. */
export async function listChatIdentities(
  db: Db,
  userIds: readonly string[],
): Promise<Array<{ userId: string; platform: "slack" | "discord" | "telegram"; platformUserId: string }>> {
  const rows = await db.identity.findMany({ where: { userId: { in: [...userIds] } }, orderBy: { id: "asc" } });
  return rows.flatMap((row) => {
    const identity = parseIdentity(row.id);
    if (!identity || identity.platform === "web") return [];
    return [{ userId: row.userId, platform: identity.platform, platformUserId: identity.userId }];
  });
}
