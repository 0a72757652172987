import crypto from "node:crypto";
import type { Db, Store } from "../connection/client";
import { asDate, rows, sqlText } from "../connection/sql";

export interface StoredButton {
  id: string;
  tenantId: string;
  agentId: string | null;
  action: string;
  payload: Record<string, unknown>;
  requestedBy: string | null;
  createdAt: Date;
}

/** 12 random bytes as base64url: 16 characters, unguessable, short enough for every platform's button. */
export const newButtonId = () => crypto.randomBytes(12).toString("base64url");

export async function createChatButtons(
  db: Db,
  buttons: Array<Omit<StoredButton, "createdAt">>,
): Promise<StoredButton[]> {
  // One statement, not an interactive transaction: on SQLite a transaction held open across awaits stalls
  // every other connection's write to the file (two monitors on one SQLite file in one test did).
  const rows = await db.chatButton.createManyAndReturn({
    data: buttons.map((b) => ({ ...b, payload: JSON.stringify(b.payload) })),
  });
  const payloads = new Map(buttons.map((b) => [b.id, b.payload]));
  return rows.map((row) => ({ ...row, payload: payloads.get(row.id)! }));
}

const readButton = sqlText(
  () =>
    `SELECT "id", "tenantId", "agentId", "action", "payload", "requestedBy", "createdAt" FROM "ChatButton" WHERE "id" = ?`,
);

/** A ChatButton row as the store's own statements read it. */
export type RawButtonRow = Omit<StoredButton, "payload" | "createdAt"> & { payload: string; createdAt: unknown };

export const rawToButton = (row: RawButtonRow): StoredButton => ({
  ...row,
  payload: JSON.parse(row.payload) as Record<string, unknown>,
  createdAt: asDate(row.createdAt),
});

/** A stored button by its token: a statement of the store's own, as every click reads one. */
export async function findChatButton(store: Store, id: string): Promise<StoredButton | null> {
  const [row] = await store.sql.read(function* (d) {
    return yield* rows<RawButtonRow>(readButton(d), id);
  });
  return row ? rawToButton(row) : null;
}

/** Replaces a button's payload, e.g. to record that its card was cancelled. */
export async function replaceChatButtonPayload(db: Db, id: string, payload: Record<string, unknown>): Promise<void> {
  await db.chatButton.updateMany({ where: { id }, data: { payload: JSON.stringify(payload) } });
}

/** Remembers that an agent was spoken to in this channel, so its replies may go there. */
export async function rememberChatChannel(db: Db, agentId: string, platform: string, channelId: string, at: Date) {
  await db.chatChannel.upsert({
    where: { agentId_platform_channelId: { agentId, platform, channelId } },
    create: { agentId, platform, channelId, lastSeenAt: at },
    update: { lastSeenAt: at },
  });
}

export async function isKnownChatChannel(db: Db, agentId: string, platform: string, channelId: string) {
  const row = await db.chatChannel.findUnique({
    where: { agentId_platform_channelId: { agentId, platform, channelId } },
  });
  return row !== null;
}
