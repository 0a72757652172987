import type { FastifyInstance } from "fastify";
import type { HandlerContext } from "../../src/bot/app/context";
import { type DirectoryFile, parseDirectory } from "../../src/bot/main/config/directory-file";
import type { Provider } from "../../src/store/connection/client";
import { createTestDatabase, type TestDatabase } from "./databases";
import { serveApi } from "./harness";

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
export async function createConfigHarness(
  provider: Provider,
  config: unknown,
  now: () => Date = () => new Date(),
): Promise<ConfigHarness> {
  const directory = parseDirectory(config, ".");
  const db = await createTestDatabase(provider);
  const api = await serveApi(db, directory, now);
  return { db, directory, ...api };
}
