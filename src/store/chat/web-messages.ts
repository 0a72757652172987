import type { Db } from "../connection/client";

export interface WebMessageRow {
  id: number;
  author: string;
  fromAgent: boolean;
  text: string;
  createdAt: Date;
}

export async function addWebMessage(
  db: Db,
  message: { channelId: string; author: string; fromAgent: boolean; text: string; at: Date },
): Promise<number> {
  const { at, ...fields } = message;
  const row = await db.webMessage.create({ data: { ...fields, createdAt: at }, select: { id: true } });
  return row.id;
}

/** The latest messages of one web conversation, oldest first. */
export async function listWebMessages(db: Db, channelId: string, limit = 50): Promise<WebMessageRow[]> {
  const rows = await db.webMessage.findMany({
    where: { channelId },
    orderBy: { id: "desc" },
    take: limit,
    select: { id: true, author: true, fromAgent: true, text: true, createdAt: true },
  });
  return rows.reverse();
}
