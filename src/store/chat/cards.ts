import type { Db } from "../connection/client";
import { isUniqueViolation } from "../connection/prisma-errors";

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

/**
 * Claims the right to post one card for (run, version, platform, channel). Returns the claim's id, or null
 * when that card is already claimed (posted, or being posted by someone else), so it is never posted twice.
 */
export async function claimCard(
  db: Db,
  card: { runId: string; version: number; platform: string; channelId: string },
): Promise<number | null> {
  try {
    const row = await db.chatCard.create({ data: { ...card, shows: "open" } });
    return row.id;
  } catch (error) {
    if (isUniqueViolation(error)) return null;
    throw error;
  }
}

export async function recordPostedCard(db: Db, id: number, messageId: string): Promise<void> {
  await db.chatCard.update({ where: { id }, data: { messageId } });
}

/** A post that failed gives its claim back, so a later sync may try again. */
export async function releaseCardClaim(db: Db, id: number): Promise<void> {
  await db.chatCard.deleteMany({ where: { id, messageId: null } });
}

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
