import { DECIDING_JOINS } from "../approvals/decisions";
import { type RawRunRow, RUN_COLUMNS, type RunRecord, rawToRunRecord } from "../approvals/runs";
import type { Db, Store } from "../connection/client";
import { asDate, count, rows, sqlText } from "../connection/sql";
import { type KnownAgent, toKnownAgent } from "../directory/directory";

/** What an approval card says now: still open for clicks, or settled with an outcome. */
export type CardShows = "open" | "approved" | "denied" | "expired" | "superseded";

export interface StoredCard {
  id: number;
  runId: string;
  version: number;
  platform: string;
  channelId: string;
  /** null while the card is being posted (claimed, not yet sent). */
  messageId: string | null;
  shows: CardShows;
  createdAt: Date;
}

type CardRow = NonNullable<Awaited<ReturnType<Db["chatCard"]["findUnique"]>>>;

const toCard = (row: Omit<CardRow, "updatedAt">): StoredCard => ({
  id: row.id,
  runId: row.runId,
  version: row.version,
  platform: row.platform,
  channelId: row.channelId,
  messageId: row.messageId,
  shows: row.shows as CardShows,
  createdAt: row.createdAt,
});

/** A run as its cards show it, read together: what a card sync starts from. */
export interface RunWithCards {
  run: RunRecord;
  /** null when the run's agent is gone. */
  agent: KnownAgent | null;
  cards: StoredCard[];
  /**
   * The decision that moved the run out of `waiting` (`DECIDING_JOINS`), with its actor's name (the actor's id
   * when the user is gone); null while the run waits.
   */
  deciding: { version: number; actorName: string | null; at: Date } | null;
}

const readRunView = sqlText(
  () => `SELECT ${RUN_COLUMNS("r")},
    a."id" AS "aId", a."tenantId" AS "aTenantId", a."name" AS "aName", a."principalId" AS "aPrincipalId",
    a."secondaryManagerId" AS "aSecondaryManagerId", a."webhook" AS "aWebhook", a."settings" AS "aSettings",
    m."version" AS "mVersion", m."actorId" AS "mActorId", m."createdAt" AS "mAt", mu."name" AS "mActorName"
  FROM "Run" r
  LEFT JOIN "Agent" a ON a."id" = r."agentId"
  ${DECIDING_JOINS}
  WHERE r."id" = ?`,
);

type RunViewRow = RawRunRow & {
  aId: string | null;
  aTenantId: string;
  aName: string;
  aPrincipalId: string | null;
  aSecondaryManagerId: string | null;
  aWebhook: string | null;
  aSettings: string;
  mVersion: number | null;
  mActorId: string | null;
  mAt: unknown;
  mActorName: string | null;
};

const CARD_COLUMNS = `"id", "runId", "version", "platform", "channelId", "messageId", "shows", "createdAt"`;
const readCards = sqlText(() => `SELECT ${CARD_COLUMNS} FROM "ChatCard" WHERE "runId" = ? ORDER BY "id"`);

type RawCardRow = Omit<CardRow, "createdAt" | "updatedAt"> & { createdAt: unknown };

/**
 * The run, its agent, its cards and the deciding decision in two statements of the store's own (a card sync
 * after each decision read them in five Prisma queries, about a millisecond each of the main thread's time).
 */
export async function readRunWithCards(store: Store, runId: string): Promise<RunWithCards | null> {
  const read = await store.sql.read(function* (d) {
    const [row] = yield* rows<RunViewRow>(readRunView(d), runId);
    if (!row) return null;
    return { row, cards: yield* rows<RawCardRow>(readCards(d), runId) };
  });
  if (!read) return null;
  const { row, cards } = read;
  return {
    run: rawToRunRecord(row),
    agent:
      row.aId === null
        ? null
        : toKnownAgent({
            id: row.aId,
            tenantId: row.aTenantId,
            name: row.aName,
            principalId: row.aPrincipalId,
            secondaryManagerId: row.aSecondaryManagerId,
            webhook: row.aWebhook,
            settings: row.aSettings,
          }),
    cards: cards.map((card) =>
      toCard({ ...card, id: Number(card.id), version: Number(card.version), createdAt: asDate(card.createdAt) }),
    ),
    deciding:
      row.mVersion === null
        ? null
        : { version: Number(row.mVersion), actorName: row.mActorName ?? row.mActorId, at: asDate(row.mAt) },
  };
}

const markShows = sqlText(
  (d) => `UPDATE "ChatCard" SET "shows" = ?, "updatedAt" = ${d.time} WHERE "id" = ? AND "shows" = ?`,
);

/**
 * Marks a card as showing `shows`, only if it still shows `from`: of two syncs racing to edit it, one wins
 * and the other leaves it alone.
 */
export async function markCardShows(
  store: Store,
  id: number,
  from: CardShows,
  shows: CardShows,
  at: Date,
): Promise<boolean> {
  const written = await store.sql.statement((d) => count(markShows(d), shows, at, id, from));
  return written === 1;
}

/** Runs that have a card still open: with the waiting runs, what a sync at start looks at. */
export async function listRunsWithOpenCards(db: Db): Promise<string[]> {
  const rows = await db.chatCard.findMany({ where: { shows: "open" }, select: { runId: true }, distinct: ["runId"] });
  return rows.map((r) => r.runId);
}
