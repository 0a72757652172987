import type { FastifyReply } from "fastify";
import { type PageName, renderPage } from "./render";
import type { ConsoleSession } from "./session";
import type { Frame, Note, Section } from "./views";

type PageData<P extends PageName> = Parameters<typeof renderPage<P>>[2];

export interface Shown {
  title: string;
  section: Section;
  path: string;
  notes?: Note[];
  status?: number;
}

/** Draws a page for the signed-in person (or nobody) and sends it; no page is ever cached. */
export function sendPage<P extends PageName>(
  reply: FastifyReply,
  session: ConsoleSession | null,
  name: P,
  shown: Shown,
  page: PageData<P>,
  csrf = session?.csrfToken ?? "",
): FastifyReply {
  const frame: Frame = {
    title: shown.title,
    section: shown.section,
    path: shown.path,
    user: session ? { name: session.user.name, tenant: session.user.tenantId } : null,
    csrf,
    notes: shown.notes ?? [],
  };
  return reply
    .status(shown.status ?? 200)
    .header("cache-control", "no-store")
    .type("text/html; charset=utf-8")
    .send(renderPage(name, frame, page));
}

export const ok = (text: string): Note => ({ kind: "ok", text });
export const refused = (text: string): Note => ({ kind: "refused", text });

/** A console error as a page: the status and one sentence, nothing about internals. */
export function sendError(reply: FastifyReply, session: ConsoleSession | null, status: number, message: string) {
  return sendPage(
    reply,
    session,
    "error",
    { title: String(status), section: "overview", path: "/", status },
    { status, message },
  );
}
