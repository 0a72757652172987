import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import { useSignInLink } from "../../app/auth/console-sessions";
import { userOfKey } from "../../app/auth/keys";
import { fieldsOf, formOf } from "./form";
import type { ConsoleOptions } from "./options";
import { refused, sendPage } from "./pages";
import { newSignInToken, readCookie, SIGN_IN_COOKIE, sameToken, setCookie, signIn, signOut } from "./session";
import type { Note } from "./views";

const SignInForm = z.object({ _csrf: z.string().max(100).default(""), key: z.string().min(1).max(500) });
const LinkForm = z.object({ _csrf: z.string().max(100).default("") });
const LinkToken = z.object({ token: z.string().regex(/^[\w-]{20,64}$/, "not a sign-in link") });

/** Sign-in with an API key (the same user keys as the API), or with a one-time link; and sign-out. */
export function registerAuthRoutes(scope: FastifyInstance, options: ConsoleOptions): void {
  const { ctx } = options;
  const demoHint = options.demoHint ?? null;

  /**
   * The sign-in page (the key form, or a link's button). Before a session exists, its forms' token is a
   * double-submit cookie (HttpOnly, SameSite=Strict), made here when the browser has none.
   */
  function signInPage(
    request: FastifyRequest,
    reply: FastifyReply,
    shown: { notes?: Note[]; status?: number; link?: string } = {},
  ) {
    const token = readCookie(request, SIGN_IN_COOKIE) ?? newSignInToken();
    setCookie(request, reply, SIGN_IN_COOKIE, token, 3600);
    const frame = { title: "Sign in", section: "sign-in" as const, path: "/sign-in", ...shown };
    return sendPage(reply, null, "sign-in", frame, { demoHint, ...(shown.link ? { link: shown.link } : {}) }, token);
  }

  /** A pre-session form's fields once its token matched the cookie; null (and a 403 page drawn) otherwise. */
  function checkedForm<T extends z.ZodType>(request: FastifyRequest, reply: FastifyReply, schema: T, link?: string) {
    const form = fieldsOf(request.body ?? {}, schema) as z.infer<T> & { _csrf: string };
    const expected = readCookie(request, SIGN_IN_COOKIE);
    if (expected && sameToken(form._csrf, expected)) return form;
    const note = refused("This form's security token is missing or out of date; nothing was changed. Try again.");
    void signInPage(request, reply, { notes: [note], status: 403, link });
    return null;
  }

  scope.get("/sign-in", async (request, reply) =>
    request.consoleSession ? reply.redirect("/", 303) : signInPage(request, reply),
  );

  scope.post("/sign-in", async (request, reply) => {
    const form = checkedForm(request, reply, SignInForm);
    if (!form) return reply;
    const user = await userOfKey(ctx, form.key);
    if (!user) {
      const note = refused("That key is not a user's API key. Use the key from your Holdfast directory entry.");
      return signInPage(request, reply, { notes: [note], status: 401 });
    }
    await signIn(ctx, request, reply, user);
    return reply.redirect("/", 303);
  });

  /** Opening the link only shows a button: chat apps fetch links to preview them, and must not use them up. */
  scope.get("/sign-in/:token", async (request, reply) => {
    const { token } = fieldsOf(request.params, LinkToken);
    return signInPage(request, reply, { link: token });
  });

  scope.post("/sign-in/:token", async (request, reply) => {
    const { token } = fieldsOf(request.params, LinkToken);
    if (!checkedForm(request, reply, LinkForm, token)) return reply;
    const user = await useSignInLink(ctx, token);
    if (!user) {
      const note = refused(
        "This sign-in link was already used or is older than 10 minutes. Type /console in chat for a new one, or sign in with your API key.",
      );
      return signInPage(request, reply, { notes: [note], status: 410 });
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
