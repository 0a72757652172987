import type { Db } from "../connection/client";

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

const toCard = (row: CardRow): StoredCard => ({
  id: row.id,
  runId: row.runId,
  version: row.version,
  platform: row.platform,
  channelId: row.channelId,
  messageId: row.messageId,
  shows: row.shows as CardShows,
  createdAt: row.createdAt,
});

export async function listRunCards(db: Db, runId: string): Promise<StoredCard[]> {
  const rows = await db.chatCard.findMany({ where: { runId }, orderBy: { id: "asc" } });
  return rows.map(toCard);
}

/**
 * Marks a card as showing `shows`, only if it still shows `from`: of two syncs racing to edit it, one wins
 * and the other leaves it alone.
 */
export async function markCardShows(db: Db, id: number, from: CardShows, shows: CardShows): Promise<boolean> {
  const written = await db.chatCard.updateMany({ where: { id, shows: from }, data: { shows } });
  return written.count === 1;
}

/** Runs that have a card still open: with the waiting runs, what a sync at start looks at. */
export async function listRunsWithOpenCards(db: Db): Promise<string[]> {
  const rows = await db.chatCard.findMany({ where: { shows: "open" }, select: { runId: true }, distinct: ["runId"] });
  return rows.map((r) => r.runId);
}
