import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { HandlerContext } from "../../src/bot/app/context";
import { HoldfastEvents } from "../../src/bot/app/events";
import { loadDirectoryFile } from "../../src/bot/main/config/directory-file";
import { ConfigError, parseEnv } from "../../src/bot/main/config/env";
import { createMetrics } from "../../src/bot/main/metrics/registry";
import { buildHttpServer } from "../../src/bot/surfaces/http/server";
import { syncDirectory } from "../../src/store/directory/directory";
import { createTestDatabase, PROVIDERS, type TestDatabase } from "../support/databases";
import { EXAMPLE_CONFIG } from "../support/harness";

const TOKEN = "metrics-token-0123456789";

describe.each(PROVIDERS)("GET /metrics on %s", (provider) => {
  let db: TestDatabase;
  let clock = new Date("2026-12-01T10:00:00Z");
  const servers: Array<ReturnType<typeof buildHttpServer>> = [];
  beforeEach(async () => {
    db = await createTestDatabase(provider);
    await syncDirectory(db.store, loadDirectoryFile(EXAMPLE_CONFIG));
  });
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.close();
    await db.drop();
  });

  const serve = async (metricsToken?: string) => {
    const ctx: HandlerContext = {
      store: db.store,
      log: pino({ level: "silent" }),
      now: () => clock,
      events: new HoldfastEvents(),
    };
    const metrics = createMetrics({ db: db.store.db, now: ctx.now });
    const server = buildHttpServer({ ctx, health: async () => ({ ok: true, checks: {} }), metrics, metricsToken });
    servers.push(server);
    await server.ready();
    return server;
  };
  const get = (server: Awaited<ReturnType<typeof serve>>, authorization?: string) =>
    server.inject({ method: "GET", url: "/metrics", headers: authorization ? { authorization } : {} });

  it("with HOLDFAST_METRICS_TOKEN set: 401 without it or with another, 200 with it", async () => {
    const server = await serve(TOKEN);
    expect((await get(server)).statusCode).toBe(401);
    expect((await get(server)).json()).toMatchObject({ error: "unauthorized" });
    expect((await get(server, "Bearer wrong")).statusCode).toBe(401);
    expect((await get(server, `Bearer ${TOKEN}x`)).statusCode).toBe(401);
    // As long as the token but not ASCII (its UTF-8 is longer): unequal, not a 500 that reveals the length.
    expect((await get(server, `Bearer ${"\u00e9".repeat(TOKEN.length)}`)).statusCode).toBe(401);
    expect((await get(server, "demo-key-acme-alice-0002")).statusCode).toBe(401);
    const ok = await get(server, `Bearer ${TOKEN}`);
    expect(ok.statusCode).toBe(200);
    expect(ok.body).toContain("holdfast_approvals_open 0");
    // Without a token the route is open.
    expect((await get(await serve())).statusCode).toBe(200);
  });

  it("answers 503, not 500, while the database does not answer", async () => {
    const lost = await createTestDatabase(provider);
    const ctx: HandlerContext = {
      store: lost.store,
      log: pino({ level: "silent" }),
      now: () => clock,
      events: new HoldfastEvents(),
    };
    const metrics = createMetrics({ db: lost.store.db, now: ctx.now });
    const server = buildHttpServer({ ctx, health: async () => ({ ok: false, checks: {} }), metrics });
    servers.push(server);
    await server.ready();
    await lost.drop();
    const answer = await get(server);
    expect(answer.statusCode).toBe(503);
    expect(answer.json()).toMatchObject({ error: "unavailable" });
  });

  it("reads the database gauges at scrape time, cached at most 5 s; two apps in one process keep their own registries", async () => {
    const a = await serve();
    const b = await serve();
    const open = (body: string) => Number(/^holdfast_approvals_open (\S+)$/m.exec(body)?.[1]);
    expect(open((await get(a)).body)).toBe(0);
    await db.store.db.run.create({
      data: { id: "acme:r1", tenantId: "acme", agentId: "acme:ops-agent", state: "waiting", createdAt: clock },
    });
    expect(open((await get(a)).body)).toBe(0); // the same scrape window
    expect(open((await get(b)).body)).toBe(1); // another app reads for itself
    clock = new Date(clock.getTime() + 5_000);
    expect(open((await get(a)).body)).toBe(1);
  });
});

describe("HOLDFAST_METRICS_TOKEN", () => {
  it("is read from the variable or from the file HOLDFAST_METRICS_TOKEN_FILE names", () => {
    expect(parseEnv({}).HOLDFAST_METRICS_TOKEN).toBeUndefined();
    expect(parseEnv({ HOLDFAST_METRICS_TOKEN: TOKEN }).HOLDFAST_METRICS_TOKEN).toBe(TOKEN);
    const file = path.join(os.tmpdir(), `holdfast-metrics-token-${process.pid}`);
    fs.writeFileSync(file, `${TOKEN}\n`);
    try {
      expect(parseEnv({ HOLDFAST_METRICS_TOKEN_FILE: file }).HOLDFAST_METRICS_TOKEN).toBe(TOKEN);
    } finally {
      fs.rmSync(file);
    }
    expect(() => parseEnv({ HOLDFAST_METRICS_TOKEN_FILE: "/nonexistent/token" })).toThrow(ConfigError);
  });
});
