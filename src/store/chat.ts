import crypto from "node:crypto";
import type { Db } from "./client";

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
  return db.$transaction(async (tx) => {
    const created: StoredButton[] = [];
    for (const b of buttons) {
      const row = await tx.chatButton.create({ data: { ...b, payload: JSON.stringify(b.payload) } });
      created.push({ ...row, payload: b.payload });
    }
    return created;
  });
}

export async function findChatButton(db: Db, id: string): Promise<StoredButton | null> {
  const row = await db.chatButton.findUnique({ where: { id } });
  return row ? { ...row, payload: JSON.parse(row.payload) as Record<string, unknown> } : null;
}

/** Replaces a button's payload (a settled resume card keeps what its Confirm did, for a repeated click). */
export async function updateChatButtonPayload(db: Db, id: string, payload: Record<string, unknown>): Promise<void> {
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
