import type { FastifyInstance } from "fastify";
import pino from "pino";
import type { ConversationEvent } from "../../src/bot/app/chat/conversation";
import type { HandlerContext } from "../../src/bot/app/context";
import { HoldfastEvents } from "../../src/bot/app/events";
import { createChatRouter } from "../../src/bot/surfaces/chat/router";
import { registerConsole } from "../../src/bot/surfaces/console/server";
import { webPublisher } from "../../src/bot/surfaces/console/web-chat";
import { registerMessageRoutes } from "../../src/bot/surfaces/http/message-routes";
import { buildHttpServer } from "../../src/bot/surfaces/http/server";
import type { Provider } from "../../src/store/connection/client";
import { syncDirectory } from "../../src/store/directory/directory";
import { exampleDirectory } from "./agent-stand-in";
import { createTestDatabase, type TestDatabase } from "./databases";
import { EXAMPLE_CONFIG, KEYS } from "./harness";

/** A page's text as a person reads it: the entities the templates escape, back to characters. */
export const fromHtml = (html: string) =>
  html
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");

export interface Answer {
  status: number;
  body: string;
  cookies: string[];
  location?: string;
  headers: Record<string, unknown>;
}

/** One browser's cookies: what the console set, sent back on every request. */
export class Browser {
  readonly jar = new Map<string, string>();
  constructor(private readonly h: { inject: ConsoleHarness["inject"] }) {}
  async get(url: string, headers?: Record<string, string>): Promise<Answer> {
    return this.keep(await this.h.inject("GET", url, this.cookie(), undefined, undefined, headers));
  }
  async post(url: string, form: Record<string, string>): Promise<Answer> {
    return this.keep(await this.h.inject("POST", url, this.cookie(), new URLSearchParams(form).toString()));
  }
  /** The CSRF token of the last page's forms. */
  static token(page: Answer): string {
    return /name="_csrf" value="([^"]*)"/.exec(page.body)?.[1] ?? "";
  }
  async signIn(user: keyof typeof KEYS): Promise<string> {
    const form = await this.get("/sign-in");
    await this.post("/sign-in", { _csrf: Browser.token(form), key: KEYS[user] });
    return Browser.token(await this.get("/"));
  }
  /** Opens a one-time link and presses its button (opening alone uses nothing up). */
  async useLink(link: string): Promise<Answer> {
    const page = await this.get(link);
    return this.post(link, { _csrf: Browser.token(page) });
  }
  private cookie() {
    return [...this.jar].map(([k, v]) => `${k}=${v}`).join("; ");
  }
  private keep(answer: Answer): Answer {
    for (const c of answer.cookies) {
      const [pair = ""] = c.split(";");
      const at = pair.indexOf("=");
      const value = pair.slice(at + 1);
      if (value) this.jar.set(pair.slice(0, at), value);
      else this.jar.delete(pair.slice(0, at));
    }
    return answer;
  }
}

export interface ConsoleHarness {
  db: TestDatabase;
  ctx: HandlerContext;
  /** What the agent's conversation destination received (the chat router's poster, counted). */
  posted: ConversationEvent[];
  inject(
    method: "GET" | "POST",
    url: string,
    cookie?: string,
    form?: string,
    type?: string,
    headers?: Record<string, string>,
  ): Promise<Answer>;
  browser(): Browser;
  /** ops-agent's own call to the API (its demo key), e.g. a reply into a conversation. */
  asAgent(url: string, body: unknown): Promise<{ status: number; body: string }>;
  close(): Promise<void>;
}

/** The API server with the console mounted, over a fresh database with the example directory. */
export async function createConsoleHarness(
  provider: Provider,
  now: () => Date = () => new Date(),
  mount?: (http: FastifyInstance, ctx: HandlerContext) => void,
) {
  const db = await createTestDatabase(provider);
  await syncDirectory(db.store, await exampleDirectory(EXAMPLE_CONFIG));
  const ctx: HandlerContext = { store: db.store, log: pino({ level: "silent" }), now, events: new HoldfastEvents() };
  const http = buildHttpServer({ ctx, health: async () => ({ ok: true, checks: {} }) });
  const posted: ConversationEvent[] = [];
  const router = createChatRouter({
    ctx,
    postConversation: async (_url, event) => {
      posted.push(event);
      return true;
    },
  });
  registerMessageRoutes(http, ctx, { web: webPublisher(ctx) });
  registerConsole(http, { ctx, router });
  mount?.(http, ctx);
  await http.ready();
  const harness: ConsoleHarness = {
    db,
    ctx,
    posted,
    async inject(method, url, cookie, form, type = "application/x-www-form-urlencoded", headers = {}) {
      const response = await http.inject({
        method,
        url,
        headers: {
          ...headers,
          ...(cookie ? { cookie } : {}),
          ...(form !== undefined ? { "content-type": type } : {}),
        },
        payload: form,
      });
      const set = response.headers["set-cookie"];
      return {
        status: response.statusCode,
        body: response.body,
        cookies: Array.isArray(set) ? set : set ? [set] : [],
        location: response.headers.location as string | undefined,
        headers: response.headers,
      };
    },
    browser: () => new Browser(harness),
    async asAgent(url, body) {
      const response = await http.inject({
        method: "POST",
        url,
        headers: { authorization: "Bearer demo-key-acme-ops-agent-0007", "content-type": "application/json" },
        payload: JSON.stringify(body),
      });
      return { status: response.statusCode, body: response.body };
    },
    async close() {
      await http.close();
      await db.drop();
    },
  };
  return harness;
}
