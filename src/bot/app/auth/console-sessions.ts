import crypto from "node:crypto";
import { hashKey } from "../../../policy/key-hash";
import {
  consumeConsoleLink,
  createConsoleLink,
  createConsoleSession,
  deleteConsoleSession,
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

/** Opens a session for this user; the returned token goes into the cookie. Old sessions and links are dropped. */
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
  ctx.log.info({ actor: user.id }, "console sign-in");
  return token;
}

export async function closeSession(ctx: HandlerContext, token: string): Promise<void> {
  await deleteConsoleSession(ctx.store.db, hashKey(token));
}

/** A one-time sign-in path ("/sign-in/<token>") for this user: valid 10 minutes, usable once. */
export async function createSignInPath(ctx: HandlerContext, user: KnownUser): Promise<string> {
  const token = newToken();
  const expiresAt = new Date(ctx.now().getTime() + LINK_TTL_MS);
  await createConsoleLink(ctx.store.db, { idHash: hashKey(token), userId: user.id, expiresAt });
  return `/sign-in/${token}`;
}

/** The link's user, once: the same link again (or after 10 minutes) is null. */
export const useSignInLink = (ctx: HandlerContext, token: string): Promise<KnownUser | null> =>
  consumeConsoleLink(ctx.store.db, hashKey(token), ctx.now());
