import type { FastifyReply, FastifyRequest } from "fastify";
import { sameSecret } from "../../../policy/secret-compare";
import {
  type ConsoleSession,
  closeSession,
  findSession,
  newToken,
  openSession,
  SESSION_TTL_MS,
} from "../../app/auth/console-sessions";
import type { HandlerContext } from "../../app/context";
import type { KnownUser } from "../../app/records";

export type { ConsoleSession };
export const SESSION_COOKIE = "hf_session";
/** The sign-in form's own CSRF token, before there is a session (a double-submit cookie). */
export const SIGN_IN_COOKIE = "hf_sign_in";

/** Tokens are compared in constant time; a missing token, or one of another length or encoding, is not equal. */
export const sameToken = (given: unknown, expected: string): boolean =>
  typeof given === "string" && sameSecret(given, expected);

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

/** The signed-in user of this request, or null. */
export async function sessionOf(ctx: HandlerContext, request: FastifyRequest): Promise<ConsoleSession | null> {
  const token = readCookie(request, SESSION_COOKIE);
  if (!token || token.length > 100) return null;
  return findSession(ctx, token);
}

/** Opens a session for this user and sets its cookie. */
export async function signIn(ctx: HandlerContext, request: FastifyRequest, reply: FastifyReply, user: KnownUser) {
  setCookie(request, reply, SESSION_COOKIE, await openSession(ctx, user), SESSION_TTL_MS / 1000);
}

export async function signOut(ctx: HandlerContext, request: FastifyRequest, reply: FastifyReply) {
  const token = readCookie(request, SESSION_COOKIE);
  if (token) await closeSession(ctx, token);
  setCookie(request, reply, SESSION_COOKIE, "", 0);
}

export const newSignInToken = newToken;
