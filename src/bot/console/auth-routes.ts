import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { findUserByKeyHash } from "../../store/directory";
import { hashKey } from "../config/secrets";
import { fieldsOf, formOf } from "./form";
import type { ConsoleOptions } from "./options";
import { refused, sendPage } from "./pages";
import {
  newSignInToken,
  readCookie,
  SIGN_IN_COOKIE,
  sameToken,
  setCookie,
  signIn,
  signOut,
  useSignInLink,
} from "./session";

const SignInForm = z.object({ _csrf: z.string().max(100).default(""), key: z.string().min(1).max(500) });
const LinkToken = z.object({ token: z.string().regex(/^[\w-]{20,64}$/, "not a sign-in link") });

/** Sign-in with an API key (the same user keys as the API), or with a one-time link; and sign-out. */
export function registerAuthRoutes(scope: FastifyInstance, options: ConsoleOptions): void {
  const { ctx } = options;
  const page = (notes = [] as ReturnType<typeof refused>[], status = 200) => ({
    title: "Sign in",
    section: "sign-in" as const,
    path: "/sign-in",
    notes,
    status,
  });

  scope.get("/sign-in", async (request, reply) => {
    if (request.consoleSession) return reply.redirect("/", 303);
    // Before a session exists, the form's token is a double-submit cookie (HttpOnly, SameSite=Strict).
    const token = readCookie(request, SIGN_IN_COOKIE) ?? newSignInToken();
    setCookie(request, reply, SIGN_IN_COOKIE, token, 3600);
    return sendPage(reply, null, "sign-in", page(), { demoHint: options.demoHint ?? null }, token);
  });

  scope.post("/sign-in", async (request, reply) => {
    const form = fieldsOf(request.body ?? {}, SignInForm);
    const expected = readCookie(request, SIGN_IN_COOKIE);
    const demoHint = options.demoHint ?? null;
    if (!expected || !sameToken(form._csrf, expected)) {
      const token = newSignInToken();
      setCookie(request, reply, SIGN_IN_COOKIE, token, 3600);
      const note = refused("This form's security token is missing or out of date; reload the page and sign in again.");
      return sendPage(reply, null, "sign-in", page([note], 403), { demoHint }, token);
    }
    const user = await findUserByKeyHash(ctx.store.db, hashKey(form.key));
    if (!user) {
      const note = refused("That key is not a user's API key. Use the key from your Holdfast directory entry.");
      return sendPage(reply, null, "sign-in", page([note], 401), { demoHint }, expected);
    }
    await signIn(ctx, request, reply, user);
    return reply.redirect("/", 303);
  });

  /** Opening the link only shows a button: chat apps fetch links to preview them, and must not use them up. */
  scope.get("/sign-in/:token", async (request, reply) => {
    const { token } = fieldsOf(request.params, LinkToken);
    const csrf = readCookie(request, SIGN_IN_COOKIE) ?? newSignInToken();
    setCookie(request, reply, SIGN_IN_COOKIE, csrf, 3600);
    return sendPage(reply, null, "sign-in", page(), { demoHint: options.demoHint ?? null, link: token }, csrf);
  });

  scope.post("/sign-in/:token", async (request, reply) => {
    const { token } = fieldsOf(request.params, LinkToken);
    const form = fieldsOf(request.body ?? {}, z.object({ _csrf: z.string().max(100).default("") }));
    const expected = readCookie(request, SIGN_IN_COOKIE);
    const demoHint = options.demoHint ?? null;
    if (!expected || !sameToken(form._csrf, expected)) {
      const fresh = newSignInToken();
      setCookie(request, reply, SIGN_IN_COOKIE, fresh, 3600);
      const note = refused("This form's security token is missing or out of date; open the link again.");
      return sendPage(reply, null, "sign-in", page([note], 403), { demoHint, link: token }, fresh);
    }
    const user = await useSignInLink(ctx, token);
    if (!user) {
      const note = refused(
        "This sign-in link was already used or is older than 10 minutes. Type /console in chat for a new one, or sign in with your API key.",
      );
      return sendPage(reply, null, "sign-in", page([note], 410), { demoHint }, expected);
    }
    await signIn(ctx, request, reply, user);
    return reply.redirect("/", 303);
  });

  scope.post("/sign-out", async (request, reply) => {
    formOf(request, request.consoleSession!, z.object({}));
    await signOut(ctx, request, reply);
    return reply.redirect("/sign-in", 303);
  });
}
