import type { FastifyInstance } from "fastify";
import pino from "pino";
import { type DirectoryFile, parseDirectory } from "../../src/bot/config/directory-file";
import type { HandlerContext } from "../../src/bot/context";
import { HoldfastEvents } from "../../src/bot/events";
import { buildHttpServer } from "../../src/bot/http/server";
import type { Provider } from "../../src/store/client";
import { syncDirectory } from "../../src/store/directory";
import { createTestDatabase, type TestDatabase } from "./databases";

export interface ConfigHarness {
  db: TestDatabase;
  ctx: HandlerContext;
  http: FastifyInstance;
  directory: DirectoryFile;
  /** A request through the full HTTP stack with `Bearer <key>`. */
  call(
    method: "GET" | "POST" | "DELETE",
    url: string,
    key?: string,
    body?: unknown,
  ): Promise<{ status: number; json: any }>;
  close(): Promise<void>;
}

/** The HTTP API on a fresh database, with a directory given as the object a YAML file would parse to. */
export async function createConfigHarness(provider: Provider, config: unknown): Promise<ConfigHarness> {
  const directory = parseDirectory(config, ".");
  const db = await createTestDatabase(provider);
  await syncDirectory(db.store, directory);
  const ctx: HandlerContext = {
    store: db.store,
    log: pino({ level: "silent" }),
    now: () => new Date(),
    events: new HoldfastEvents(),
  };
  const http = buildHttpServer({ ctx, health: async () => ({ ok: true, checks: {} }) });
  await http.ready();
  return {
    db,
    ctx,
    http,
    directory,
    async call(method, url, key, body) {
      const response = await http.inject({
        method,
        url,
        headers: {
          ...(key ? { authorization: `Bearer ${key}` } : {}),
          ...(body !== undefined ? { "content-type": "application/json" } : {}),
        },
        payload: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.statusCode, json: response.body ? JSON.parse(response.body) : null };
    },
    async close() {
      await http.close();
      await db.drop();
    },
  };
}
