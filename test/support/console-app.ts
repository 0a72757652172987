import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { type HoldfastApp, startApp } from "../../src/bot/main/app";
import { parseEnv } from "../../src/bot/main/config/env";
import { planDelivery } from "../../src/store/outbox/plan";
import { freePort } from "./bot-process";
import { capturedLog } from "./log-capture";

export interface DemoApp {
  app: HoldfastApp;
  base: string;
  root: string;
  lines: Array<Record<string, unknown>>;
  /** The demo's start line (console URL, alice's one-time link, the others' keys). */
  demoLine: string;
  close(): Promise<void>;
}

/**
 * The real app on the example config (HOLDFAST_CONFIG unset), as `npm start` runs it, so it seeds the demo,
 * on a free port (the example declares the demo receiver at `${PORT}`). It starts from a copy of the example
 * (same file name, as the project root) so that its database stays in a folder of its own.
 */
export async function startDemoApp(
  options: {
    databaseUrl?: string;
    port?: number;
    prefix?: string;
    realConfig?: boolean;
    /** More environment, e.g. HOLDFAST_MONITOR_INTERVAL. */
    env?: Record<string, string>;
  } = {},
): Promise<DemoApp> {
  const { databaseUrl } = options;
  const port = options.port ?? (await freePort());
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "holdfast-console-"));
  const example = fs.readFileSync(path.resolve("holdfast.example.yaml"), "utf8");
  const configFile = path.join(root, "holdfast.example.yaml");
  fs.writeFileSync(configFile, example);
  const env = parseEnv({
    PORT: String(port),
    DATABASE_URL: databaseUrl ?? `file:${path.join(root, "holdfast.db")}`,
    HOLDFAST_QUEUE_PREFIX: options.prefix ?? `console-${crypto.randomBytes(4).toString("hex")}`,
    LOG_LEVEL: "info",
    ...options.env,
    // The very same file given as a real config: then nothing may be seeded.
    ...(options.realConfig ? { HOLDFAST_CONFIG: configFile, HOST: "127.0.0.1" } : {}),
  });
  const { log, lines } = capturedLog("info");
  const app = await startApp({ env, log, root });
  const demoLine = String(lines.find((l) => l.demo === true)?.msg ?? "");
  return {
    app,
    base: `http://127.0.0.1:${port}`,
    root,
    lines,
    demoLine,
    async close() {
      await app.stop();
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}

/** An approved action whose delivery outcome is unknown (a timeout after the request went out). */
export async function plantNeedsReview(
  app: HoldfastApp,
  item: { id: string; runId: string; digest: string; destination: string },
): Promise<void> {
  const { store } = app.ctx;
  const base = { kind: "action" as const, tenantId: "acme", agentId: "acme:ops-agent", contract: "key-retained 24h" };
  await planDelivery(store, { ...base, ...item, payload: { demo: "needs review" } }, app.ctx.now());
  await store.db.outboxItem.update({
    where: { id: item.id },
    data: {
      state: "NEEDS_REVIEW",
      attempts: 1,
      lastAttemptAt: app.ctx.now(),
      lastResult: "timeout after 10 s with the request sent: the outcome is unknown",
    },
  });
}
