import type { Db } from "../connection/client";

/** A ping card in a chat: claimed (messageId null) before the post, so a retry never posts it twice. */
export interface StoredPingCard {
  id: number;
  escalationId: string;
  platform: string;
  channelId: string;
  messageId: string | null;
  content: unknown;
}

/** The posted cards of an escalation that still show it open. */
export async function listOpenPingCards(db: Db, escalationId: string): Promise<StoredPingCard[]> {
  const rows = await db.escalationCard.findMany({
    where: { escalationId, shows: "open", messageId: { not: null } },
    orderBy: { id: "asc" },
  });
  return rows.map((r) => ({ ...r, content: JSON.parse(r.content) as unknown }));
}

/** Escalations resolved with a card still showing them open (an edit that failed, or a crash before it). */
export async function listResolvedWithOpenCards(db: Db): Promise<string[]> {
  const rows = await db.escalationCard.findMany({
    where: { shows: "open", messageId: { not: null } },
    select: { escalationId: true },
    distinct: ["escalationId"],
  });
  const resolved = await db.escalation.findMany({
    where: { id: { in: rows.map((r) => r.escalationId) }, state: "resolved" },
    select: { id: true },
  });
  return resolved.map((r) => r.id);
}

/** Marks one card settled; of two racing edits only one gets true. */
export async function markPingCardResolved(db: Db, id: number, settled: boolean): Promise<boolean> {
  const written = await db.escalationCard.updateMany({
    where: { id, shows: settled ? "open" : "resolved" },
    data: { shows: settled ? "resolved" : "open" },
  });
  return written.count === 1;
}

/** Where each step of these escalations was posted: escalation id -> "level.repeat" -> the places. */
export async function listPostedPingPlaces(
  db: Db,
  escalationIds: readonly string[],
): Promise<Map<string, Map<string, Array<{ platform: string; channelId: string }>>>> {
  const rows = await db.escalationCard.findMany({
    where: { escalationId: { in: [...escalationIds] }, messageId: { not: null } },
    select: { escalationId: true, level: true, repeat: true, platform: true, channelId: true },
    orderBy: { id: "asc" },
  });
  const places = new Map<string, Map<string, Array<{ platform: string; channelId: string }>>>();
  for (const row of rows) {
    const steps = places.get(row.escalationId) ?? new Map();
    const step = `${row.level}.${row.repeat}`;
    steps.set(step, [...(steps.get(step) ?? []), { platform: row.platform, channelId: row.channelId }]);
    places.set(row.escalationId, steps);
  }
  return places;
}
