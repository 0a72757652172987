import type { Db } from "../connection/client";
import { endConsoleAccess, findUserById, type KnownUser } from "./directory";

export { endConsoleAccess };

export interface ConsoleSessionRow {
  user: KnownUser;
  csrfToken: string;
  expiresAt: Date;
}

/** Stores a session under the digest of its cookie token (the token itself is never kept). */
export async function createConsoleSession(
  db: Db,
  session: { idHash: string; userId: string; csrfToken: string; expiresAt: Date },
): Promise<void> {
  const { idHash, ...fields } = session;
  await db.consoleSession.create({ data: { id: idHash, ...fields } });
}

/** The session's user and CSRF token, or null when unknown, expired, or its user left the directory. */
export async function findConsoleSession(db: Db, idHash: string, now: Date): Promise<ConsoleSessionRow | null> {
  const row = await db.consoleSession.findUnique({ where: { id: idHash } });
  if (!row || row.expiresAt.getTime() <= now.getTime()) return null;
  const user = await findUserById(db, row.userId);
  return user ? { user, csrfToken: row.csrfToken, expiresAt: row.expiresAt } : null;
}

export async function deleteConsoleSession(db: Db, idHash: string): Promise<void> {
  await db.consoleSession.deleteMany({ where: { id: idHash } });
}

/** Expired sessions and used or expired links, dropped now and then. */
export async function pruneConsoleSessions(db: Db, now: Date): Promise<void> {
  await db.consoleSession.deleteMany({ where: { expiresAt: { lte: now } } });
  await db.consoleLink.deleteMany({ where: { OR: [{ expiresAt: { lte: now } }, { usedAt: { not: null } }] } });
}

export async function createConsoleLink(db: Db, link: { idHash: string; userId: string; expiresAt: Date }) {
  const { idHash, ...fields } = link;
  await db.consoleLink.create({ data: { id: idHash, ...fields } });
}

/**
 * Uses a one-time link: one conditional write marks it used only while it is unused and unexpired, so of
 * two requests with the same link (two tabs, a replay) exactly one gets its user.
 */
export async function consumeConsoleLink(db: Db, idHash: string, now: Date): Promise<KnownUser | null> {
  const used = await db.consoleLink.updateMany({
    where: { id: idHash, usedAt: null, expiresAt: { gt: now } },
    data: { usedAt: now },
  });
  if (used.count !== 1) return null;
  const link = await db.consoleLink.findUnique({ where: { id: idHash } });
  return link ? findUserById(db, link.userId) : null;
}

/** Keeps a user's newest `keep` sessions and ends the older ones; the count ended. */
export async function capConsoleSessions(db: Db, userId: string, keep: number): Promise<number> {
  const older = await db.consoleSession.findMany({
    where: { userId },
    orderBy: [{ createdAt: "desc" }, { expiresAt: "desc" }],
    skip: keep,
    select: { id: true },
  });
  if (older.length === 0) return 0;
  const ended = await db.consoleSession.deleteMany({ where: { id: { in: older.map((s) => s.id) } } });
  return ended.count;
}

/** Keeps a user's newest `keep` unused links (all live 10 minutes, so the latest to expire are the newest). */
export async function capConsoleLinks(db: Db, userId: string, keep: number): Promise<void> {
  const older = await db.consoleLink.findMany({
    where: { userId, usedAt: null },
    orderBy: { expiresAt: "desc" },
    skip: keep,
    select: { id: true },
  });
  if (older.length) await db.consoleLink.deleteMany({ where: { id: { in: older.map((l) => l.id) } } });
}
