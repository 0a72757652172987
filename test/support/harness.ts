import path from "node:path";
import type { FastifyInstance } from "fastify";
import pino from "pino";
import type { HandlerContext } from "../../src/bot/app/context";
import { HoldfastEvents } from "../../src/bot/app/events";
import { buildHttpServer } from "../../src/bot/surfaces/http/server";
import type { Provider } from "../../src/store/connection/client";
import { type DirectorySpec, syncDirectory } from "../../src/store/directory/directory";
import { exampleDirectory } from "./agent-stand-in";
import { createTestDatabase, type TestDatabase } from "./databases";

export const EXAMPLE_CONFIG = path.resolve("holdfast.example.yaml");

/** The demo keys of holdfast.example.yaml, by user. */
export const KEYS = {
  ada: "demo-key-acme-ada-0001",
  alice: "demo-key-acme-alice-0002",
  sam: "demo-key-acme-sam-0003",
  rita: "demo-key-acme-rita-0004",
  bob: "demo-key-acme-bob-0005",
  mia: "demo-key-acme-mia-0006",
  gina: "demo-key-globex-gina-0001",
} as const;
export type DemoUser = keyof typeof KEYS;

export interface Harness {
  db: TestDatabase;
  ctx: HandlerContext;
  http: FastifyInstance;
  /** A request through the full HTTP stack (body limits, parsing, auth) without a socket. */
  call(
    method: "GET" | "POST" | "DELETE",
    url: string,
    as?: DemoUser,
    body?: unknown,
  ): Promise<{ status: number; json: any }>;
  close(): Promise<void>;
}

/** The API server over a test database, and a request through its full HTTP stack with `Bearer <key>`. */
export async function serveApi(db: TestDatabase, directory: DirectorySpec, now: () => Date = () => new Date()) {
  await syncDirectory(db.store, directory);
  const ctx: HandlerContext = { store: db.store, log: pino({ level: "silent" }), now, events: new HoldfastEvents() };
  const http = buildHttpServer({ ctx, health: async () => ({ ok: true, checks: {} }) });
  await http.ready();
  async function call(method: "GET" | "POST" | "DELETE", url: string, key?: string, body?: unknown) {
    const response = await http.inject({
      method,
      url,
      headers: {
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
      },
      payload: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
    return { status: response.statusCode, json: response.body ? JSON.parse(response.body) : null };
  }
  const close = async () => {
    await http.close();
    await db.drop();
  };
  return { ctx, http, call, close };
}

export async function createHarness(provider: Provider, now: () => Date = () => new Date()): Promise<Harness> {
  const db = await createTestDatabase(provider);
  const api = await serveApi(db, await exampleDirectory(EXAMPLE_CONFIG), now);
  return {
    db,
    ctx: api.ctx,
    http: api.http,
    call: (method, url, as, body) => api.call(method, url, as ? KEYS[as] : undefined, body),
    close: api.close,
  };
}
