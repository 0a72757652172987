import crypto from "node:crypto";
import { hashKey } from "../../../policy/key-hash";
import { LINKS_PER_USER, SESSIONS_PER_USER } from "../../../policy/sign-in-limits";
import {
  capConsoleLinks,
  capConsoleSessions,
  consumeConsoleLink,
  createConsoleLink,
  createConsoleSession,
  deleteConsoleSession,
  endConsoleAccess,
  findConsoleSession,
  pruneConsoleSessions,
} from "../../../store/directory/console-sessions";
import type { KnownUser } from "../../../store/directory/directory";
import type { HandlerContext } from "../context";

// The console's sessions and one-time sign-in links. Both live in the database under the digest of their token
// (the token itself is never kept), so every process knows them.

export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
export const LINK_TTL_MS = 10 * 60 * 1000;

export interface ConsoleSession {
  user: KnownUser;
  csrfToken: string;
}

/** An unguessable token for a cookie, a link or a form. */
export const newToken = () => crypto.randomBytes(24).toString("base64url");

/** The signed-in user of a session token and the session's CSRF token; null when unknown or expired. */
export async function findSession(ctx: HandlerContext, token: string): Promise<ConsoleSession | null> {
  const row = await findConsoleSession(ctx.store.db, hashKey(token), ctx.now());
  return row ? { user: row.user, csrfToken: row.csrfToken } : null;
}

/**
 * Opens a session for this user; the returned token goes into the cookie. Expired sessions and links are
 * dropped, and past SESSIONS_PER_USER the user's oldest session ends.
 */
export async function openSession(ctx: HandlerContext, user: KnownUser): Promise<string> {
  const token = newToken();
  const expiresAt = new Date(ctx.now().getTime() + SESSION_TTL_MS);
  await createConsoleSession(ctx.store.db, {
    idHash: hashKey(token),
    userId: user.id,
    csrfToken: newToken(),
    expiresAt,
  });
  await pruneConsoleSessions(ctx.store.db, ctx.now());
  const ended = await capConsoleSessions(ctx.store.db, user.id, SESSIONS_PER_USER);
  ctx.log.info({ actor: user.id, ...(ended ? { endedOldest: ended } : {}) }, "console sign-in");
  return token;
}

export async function closeSession(ctx: HandlerContext, token: string): Promise<void> {
  await deleteConsoleSession(ctx.store.db, hashKey(token));
}

/** Ends every console session of this user and voids their unused links ("Sign out everywhere"). */
export async function endEverySession(ctx: HandlerContext, user: KnownUser): Promise<number> {
  const ended = await endConsoleAccess(ctx.store.db, user.id);
  ctx.log.info({ actor: user.id, sessions: ended }, "console sessions ended everywhere");
  return ended;
}

/**
 * A one-time sign-in path ("/sign-in/<token>") for this user: valid 10 minutes, usable once. Past
 * LINKS_PER_USER unused links, the user's oldest one stops working.
 */
export async function createSignInPath(ctx: HandlerContext, user: KnownUser): Promise<string> {
  const token = newToken();
  const expiresAt = new Date(ctx.now().getTime() + LINK_TTL_MS);
  await createConsoleLink(ctx.store.db, { idHash: hashKey(token), userId: user.id, expiresAt });
  await capConsoleLinks(ctx.store.db, user.id, LINKS_PER_USER);
  return `/sign-in/${token}`;
}

/** The link's user, once: the same link again (or after 10 minutes) is null. */
export const useSignInLink = (ctx: HandlerContext, token: string): Promise<KnownUser | null> =>
  consumeConsoleLink(ctx.store.db, hashKey(token), ctx.now());
