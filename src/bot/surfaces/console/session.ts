import crypto from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import { hashKey } from "../../../policy/key-hash";
import {
  consumeConsoleLink,
  createConsoleLink,
  createConsoleSession,
  deleteConsoleSession,
  findConsoleSession,
  pruneConsoleSessions,
} from "../../../store/directory/console-sessions";
import type { HandlerContext } from "../../app/context";
import type { KnownUser } from "../../app/records";

export const SESSION_COOKIE = "hf_session";
/** The sign-in form's own CSRF token, before there is a session (a double-submit cookie). */
export const SIGN_IN_COOKIE = "hf_sign_in";
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
export const LINK_TTL_MS = 10 * 60 * 1000;

export interface ConsoleSession {
  user: KnownUser;
  csrfToken: string;
}

const randomToken = () => crypto.randomBytes(24).toString("base64url");
/** Tokens are compared in constant time; a missing or wrong-length token is simply not equal. */
export function sameToken(given: unknown, expected: string): boolean {
  if (typeof given !== "string" || given.length !== expected.length) return false;
  return crypto.timingSafeEqual(Buffer.from(given), Buffer.from(expected));
}

export function readCookie(request: FastifyRequest, name: string): string | null {
  const header = request.headers.cookie;
  if (!header) return null;
  for (const part of header.split(";")) {
    const at = part.indexOf("=");
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim() || null;
  }
  return null;
}

/** HttpOnly and SameSite=Strict always; Secure whenever the console is reached over HTTPS. */
export function setCookie(request: FastifyRequest, reply: FastifyReply, name: string, value: string, maxAgeS: number) {
  const secure = request.protocol === "https" ? "; Secure" : "";
  const cookie = `${name}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeS}${secure}`;
  const before = reply.getHeader("set-cookie");
  const list = Array.isArray(before) ? before : typeof before === "string" ? [before] : [];
  reply.header("set-cookie", [...list, cookie]);
}

/** The signed-in user of this request, or null. Sessions live in the database, so every process knows them. */
export async function sessionOf(ctx: HandlerContext, request: FastifyRequest): Promise<ConsoleSession | null> {
  const token = readCookie(request, SESSION_COOKIE);
  if (!token || token.length > 100) return null;
  const row = await findConsoleSession(ctx.store.db, hashKey(token), ctx.now());
  return row ? { user: row.user, csrfToken: row.csrfToken } : null;
}

/** Opens a session for this user and sets its cookie. */
export async function signIn(ctx: HandlerContext, request: FastifyRequest, reply: FastifyReply, user: KnownUser) {
  const token = randomToken();
  const expiresAt = new Date(ctx.now().getTime() + SESSION_TTL_MS);
  await createConsoleSession(ctx.store.db, {
    idHash: hashKey(token),
    userId: user.id,
    csrfToken: randomToken(),
    expiresAt,
  });
  setCookie(request, reply, SESSION_COOKIE, token, SESSION_TTL_MS / 1000);
  await pruneConsoleSessions(ctx.store.db, ctx.now());
  ctx.log.info({ actor: user.id }, "console sign-in");
}

export async function signOut(ctx: HandlerContext, request: FastifyRequest, reply: FastifyReply) {
  const token = readCookie(request, SESSION_COOKIE);
  if (token) await deleteConsoleSession(ctx.store.db, hashKey(token));
  setCookie(request, reply, SESSION_COOKIE, "", 0);
}

/** A one-time sign-in path ("/sign-in/<token>") for this user: valid 10 minutes, usable once. */
export async function createSignInPath(ctx: HandlerContext, user: KnownUser): Promise<string> {
  const token = randomToken();
  const expiresAt = new Date(ctx.now().getTime() + LINK_TTL_MS);
  await createConsoleLink(ctx.store.db, { idHash: hashKey(token), userId: user.id, expiresAt });
  return `/sign-in/${token}`;
}

/** The link's user, once: the same link again (or after 10 minutes) is null. */
export const useSignInLink = (ctx: HandlerContext, token: string): Promise<KnownUser | null> =>
  consumeConsoleLink(ctx.store.db, hashKey(token), ctx.now());

export const newSignInToken = randomToken;
