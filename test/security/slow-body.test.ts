import type { AddressInfo } from "node:net";
import net from "node:net";
import type { FastifyInstance } from "fastify";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import type { HandlerContext } from "../../src/bot/app/context";
import { HoldfastEvents } from "../../src/bot/app/events";
import { loadDirectoryFile } from "../../src/bot/main/config/directory-file";
import { buildHttpServer, REQUEST_TIMEOUT_MS } from "../../src/bot/surfaces/http/server";
import { syncDirectory } from "../../src/store/directory/directory";
import { createTestDatabase, PROVIDERS, type TestDatabase } from "../support/databases";
import { EXAMPLE_CONFIG } from "../support/harness";

const AGENT_KEY = "demo-key-acme-ops-agent-0007";

/** What a raw socket got back, and after how long the server closed it (null: still open at `giveUpMs`). */
async function dribble(port: number, head: string, bodyBytes: number, everyMs: number, giveUpMs: number) {
  const socket = net.connect(port, "127.0.0.1");
  const started = Date.now();
  let answer = "";
  socket.on("data", (chunk) => {
    answer += chunk.toString("latin1");
  });
  socket.on("error", () => {});
  await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  socket.write(head);
  let sent = 0;
  const timer = setInterval(() => {
    if (sent < bodyBytes && !socket.destroyed) socket.write("x", () => {});
    sent++;
  }, everyMs);
  const closedAfterMs = await new Promise<number | null>((resolve) => {
    const give = setTimeout(() => resolve(null), giveUpMs);
    socket.once("close", () => {
      clearTimeout(give);
      resolve(Date.now() - started);
    });
  });
  clearInterval(timer);
  socket.destroy();
  return { answer, closedAfterMs, sent };
}

describe.each(PROVIDERS)("a slow request body on %s", (provider) => {
  let db: TestDatabase;
  let http: FastifyInstance;
  afterEach(async () => {
    await http?.close();
    await db?.drop();
  });

  async function serve(options: { requestTimeoutMs?: number; requestTimeoutCheckMs?: number }) {
    db = await createTestDatabase(provider);
    await syncDirectory(db.store, loadDirectoryFile(EXAMPLE_CONFIG));
    const ctx: HandlerContext = {
      store: db.store,
      log: pino({ level: "silent" }),
      now: () => new Date(),
      events: new HoldfastEvents(),
    };
    http = buildHttpServer({ ctx, health: async () => ({ ok: true, checks: {} }), ...options });
    await http.listen({ port: 0, host: "127.0.0.1" });
    return (http.server.address() as AddressInfo).port;
  }

  it("cuts off a body sent a byte at a time with a 408 and closes the connection; nothing is stored", async () => {
    const port = await serve({ requestTimeoutMs: 1_000, requestTimeoutCheckMs: 100 });
    const head = [
      "POST /v1/agents/ops-agent/events HTTP/1.1",
      "Host: 127.0.0.1",
      `Authorization: Bearer ${AGENT_KEY}`,
      "Content-Type: application/json",
      "Content-Length: 400",
      "",
      "",
    ].join("\r\n");
    const result = await dribble(port, head, 400, 50, 10_000);
    expect(result.closedAfterMs).not.toBeNull();
    expect(result.sent).toBeLessThan(400); // cut off long before the body was all there
    expect(result.answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(await db.store.db.inboxEvent.count()).toBe(0);
    // The server goes on answering others.
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
  });

  it("cuts off headers sent a byte at a time too", async () => {
    const port = await serve({ requestTimeoutMs: 1_000, requestTimeoutCheckMs: 100 });
    const result = await dribble(port, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ", 400, 50, 10_000);
    expect(result.closedAfterMs).not.toBeNull();
  });

  it("has a limit by default (30 s for the whole request)", async () => {
    await serve({});
    expect(REQUEST_TIMEOUT_MS).toBe(30_000);
    expect(http.server.requestTimeout).toBe(30_000);
    expect(http.server.headersTimeout).toBe(30_000);
  });
});
