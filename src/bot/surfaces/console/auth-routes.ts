import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import { endEverySession, useSignInLink } from "../../app/auth/console-sessions";
import { userOfKey } from "../../app/auth/keys";
import { countSignIn, memoryAttemptCounter, type SignInThrottle } from "../../app/auth/sign-in-limits";
import { fieldsOf, formOf } from "./form";
import type { ConsoleOptions } from "./options";
import { refused, sendPage } from "./pages";
import { newSignInToken, readCookie, SIGN_IN_COOKIE, sameToken, setCookie, signIn, signOut } from "./session";
import type { Note } from "./views";

const SignInForm = z.object({ _csrf: z.string().max(100).default(""), key: z.string().min(1).max(500) });
const LinkForm = z.object({ _csrf: z.string().max(100).default("") });
const LinkToken = z.object({ token: z.string().regex(/^[\w-]{20,64}$/, "not a sign-in link") });

type Shown = { notes?: Note[]; status?: number; link?: string };

/** Sign-in with an API key (the same user keys as the API), or with a one-time link; and sign-out. */
export function registerAuthRoutes(scope: FastifyInstance, options: ConsoleOptions): void {
  const { ctx } = options;
  const demoHint = options.demoHint ?? null;
  const attempts = options.attempts ?? memoryAttemptCounter();
  const page = (request: FastifyRequest, reply: FastifyReply, shown?: Shown) =>
    signInPage(demoHint, request, reply, shown);
  const checkedForm = <T extends z.ZodType>(request: FastifyRequest, reply: FastifyReply, schema: T, link?: string) =>
    checkedFormOf(demoHint, request, reply, schema, link);
  const throttledPage = (request: FastifyRequest, reply: FastifyReply, throttle: SignInThrottle, link?: string) =>
    throttled(demoHint, request, reply, throttle, link);

  scope.get("/sign-in", async (request, reply) =>
    request.consoleSession ? reply.redirect("/", 303) : page(request, reply),
  );

  scope.post("/sign-in", async (request, reply) => {
    const fromHere = await countSignIn(ctx, attempts, "address", request.ip);
    if (fromHere) return throttledPage(request, reply, fromHere);
    const form = checkedForm(request, reply, SignInForm);
    if (!form) return reply;
    const user = await userOfKey(ctx, form.key);
    if (!user) {
      const note = refused("That key is not a user's API key. Use the key from your Holdfast directory entry.");
      return page(request, reply, { notes: [note], status: 401 });
    }
    const forUser = await countSignIn(ctx, attempts, "user", user.id);
    if (forUser) return throttledPage(request, reply, forUser);
    await signIn(ctx, request, reply, user);
    return reply.redirect("/", 303);
  });

  /** Opening the link only shows a button: chat apps fetch links to preview them, and must not use them up. */
  scope.get("/sign-in/:token", async (request, reply) => {
    const { token } = fieldsOf(request.params, LinkToken);
    return page(request, reply, { link: token });
  });

  scope.post("/sign-in/:token", async (request, reply) => {
    const { token } = fieldsOf(request.params, LinkToken);
    const fromHere = await countSignIn(ctx, attempts, "address", request.ip);
    if (fromHere) return throttledPage(request, reply, fromHere, token);
    if (!checkedForm(request, reply, LinkForm, token)) return reply;
    const user = await useSignInLink(ctx, token);
    if (!user) {
      const note = refused(
        "This sign-in link was already used or is older than 10 minutes. Type /console in chat for a new one, or sign in with your API key.",
      );
      return page(request, reply, { notes: [note], status: 410 });
    }
    const forUser = await countSignIn(ctx, attempts, "user", user.id);
    if (forUser) return throttledPage(request, reply, forUser);
    await signIn(ctx, request, reply, user);
    return reply.redirect("/", 303);
  });

  registerSignOutRoutes(scope, options);
}

/** Sign-out here, and everywhere (every session of the user). */
function registerSignOutRoutes(scope: FastifyInstance, { ctx }: ConsoleOptions): void {
  scope.post("/sign-out", async (request, reply) => {
    formOf(request, request.consoleSession!, z.object({}));
    await signOut(ctx, request, reply);
    return reply.redirect("/sign-in", 303);
  });

  /** Ends every session of the signed-in user, in every browser (and their unused one-time links). */
  scope.post("/sign-out/everywhere", async (request, reply) => {
    const session = request.consoleSession!;
    formOf(request, session, z.object({}));
    await endEverySession(ctx, session.user);
    await signOut(ctx, request, reply);
    return reply.redirect("/sign-in", 303);
  });
}

/**
 * The sign-in page (the key form, or a link's button). Before a session exists, its forms' token is a
 * double-submit cookie (HttpOnly, SameSite=Strict), made here when the browser has none.
 */
function signInPage(demoHint: string | null, request: FastifyRequest, reply: FastifyReply, shown: Shown = {}) {
  const token = readCookie(request, SIGN_IN_COOKIE) ?? newSignInToken();
  setCookie(request, reply, SIGN_IN_COOKIE, token, 3600);
  const frame = { title: "Sign in", section: "sign-in" as const, path: "/sign-in", ...shown };
  return sendPage(reply, null, "sign-in", frame, { demoHint, ...(shown.link ? { link: shown.link } : {}) }, token);
}

/** A pre-session form's fields once its token matched the cookie; null (and a 403 page drawn) otherwise. */
function checkedFormOf<T extends z.ZodType>(
  demoHint: string | null,
  request: FastifyRequest,
  reply: FastifyReply,
  schema: T,
  link?: string,
) {
  const form = fieldsOf(request.body ?? {}, schema) as z.infer<T> & { _csrf: string };
  const expected = readCookie(request, SIGN_IN_COOKIE);
  if (expected && sameToken(form._csrf, expected)) return form;
  const note = refused("This form's security token is missing or out of date; nothing was changed. Try again.");
  void signInPage(demoHint, request, reply, { notes: [note], status: 403, link });
  return null;
}

/** Past a sign-in limit: a 429 with Retry-After, the sign-in page saying when to try again. */
function throttled(
  demoHint: string | null,
  request: FastifyRequest,
  reply: FastifyReply,
  throttle: SignInThrottle,
  link?: string,
) {
  const seconds = throttle?.retryAfterS ?? 60;
  reply.header("retry-after", String(seconds));
  const note = refused(`Too many sign-in attempts in the last minute; nothing was checked. Try again in ${seconds} s.`);
  return signInPage(demoHint, request, reply, { notes: [note], status: 429, link });
}
