import crypto from "node:crypto";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import type { Logger } from "pino";
import { redisAttemptCounter } from "../../queue/attempt-counter";
import { httpTransport } from "../../queue/delivery/http-transport";
import { claimRedisPrefix } from "../../queue/deployment-claim";
import { connectRedis, type RedisHandle } from "../../queue/redis";
import { startRetention } from "../../queue/retention";
import { openStore, pingDatabase, type Store } from "../../store/connection/client";
import { describeDatabaseUrl } from "../../store/connection/database-url";
import { agreedSetting } from "../../store/connection/leases";
import { migrateDatabase } from "../../store/connection/migrate";
import { claimDatabaseFile } from "../../store/connection/sqlite-claim";
import { syncDirectory } from "../../store/directory/directory";
import { lastMonitorTickAt } from "../../store/escalations/monitor-tick";
import { agentPoster } from "../app/agent-webhook";
import { memoryAttemptCounter } from "../app/auth/sign-in-limits";
import { conversationPoster } from "../app/chat/conversation";
import type { HandlerContext } from "../app/context";
import { HoldfastEvents } from "../app/events";
import { alignTriggersWithConfig } from "../app/held/trigger-config";
import { buildHttpServer, type HealthReport } from "../surfaces/http/server";
import { startApprovalScheduling } from "./approvals-wiring";
import { startChat } from "./chat-wiring";
import { type DirectoryFile, loadDirectoryFile } from "./config/directory-file";
import type { HoldfastEnv } from "./config/env";
import { unsignedAgents } from "./config/outbound-config";
import { wireConsole } from "./console-wiring";
import { crashFaults } from "./crash-hook";
import { addDemoSigningKey, DEMO_AGENT_ID } from "./demo-signing";
import { type EscalationWiring, startEscalations } from "./escalation-wiring";
import { startHeld } from "./held-wiring";
import { takeIdentity } from "./instance-identity";
import { type LiveMaintenance, wireMaintenance } from "./maintenance-start";
import type { MaintenanceRuntime } from "./maintenance-wiring";
import { createMetrics } from "./metrics/registry";

export interface HoldfastApp {
  ctx: HandlerContext;
  http: FastifyInstance;
  redis: RedisHandle;
  /** The stale-wait monitor (its `tick()` is what each scheduled job runs). */
  escalations: EscalationWiring;
  /** The port the API listens on (useful when PORT=0). */
  port: number;
  /** Work under way now, for a shutdown that must say what it leaves behind. */
  inFlight(): { deliveries: number };
  /** This process in maintenance windows: the drain of a signal, STOPPED before exit (maintenance-wiring.ts). */
  maintenance: MaintenanceRuntime;
  stop(): Promise<void>;
}

export interface CreateAppOptions {
  env: HoldfastEnv;
  log: Logger;
  now?: () => Date;
  /** Project root, for the example config. */
  root?: string;
  /** The raw environment, for chat platform credentials (NAME or NAME_FILE). Absent: no chat platforms. */
  processEnv?: NodeJS.ProcessEnv;
}

/** Cleanups run newest first, once; a failed one does not stop the others. */
class Cleanups {
  private readonly steps: Array<() => Promise<unknown>> = [];
  add(step: () => Promise<unknown>): void {
    this.steps.unshift(step);
  }
  async run(): Promise<void> {
    for (const step of this.steps.splice(0)) await step().catch(() => {});
  }
}

interface Database {
  applied: string[];
  directory: DirectoryFile;
  configFile: string;
  releaseDatabaseFile: () => void;
}

/** Claims the SQLite file (if any), applies migrations and reads the directory file. */
async function prepareDatabase(env: HoldfastEnv, root: string): Promise<Database> {
  const releaseDatabaseFile = claimDatabaseFile(env.DATABASE_URL);
  try {
    const applied = await migrateDatabase(env.DATABASE_URL);
    const configFile = env.HOLDFAST_CONFIG ?? path.join(root, "holdfast.example.yaml");
    return { applied, directory: loadDirectoryFile(configFile, env.PORT), configFile, releaseDatabaseFile };
  } catch (error) {
    releaseDatabaseFile();
    throw error;
  }
}

/** Wires the process: migrate, load the directory, connect Redis, start the work, serve the API and chat. */
export async function startApp(options: CreateAppOptions): Promise<HoldfastApp> {
  const { env, log } = options;
  const { applied, directory, configFile, releaseDatabaseFile } = await prepareDatabase(
    env,
    options.root ?? process.cwd(),
  );
  const schema = applied.length ? `${applied.length} migrations applied` : "schema up to date";
  log.info({ applied }, `database: ${describeDatabaseUrl(env.DATABASE_URL)} (${schema})`);
  if (!env.HOLDFAST_CONFIG)
    log.warn({ configFile }, "HOLDFAST_CONFIG is unset: using the example directory (demo keys)");

  const store: Store = await openStore(env.DATABASE_URL);
  const cleanups = new Cleanups();
  cleanups.add(async () => releaseDatabaseFile());
  cleanups.add(() => store.close());
  try {
    await agreeOnQueuePrefix(store, env.HOLDFAST_QUEUE_PREFIX);
    const deployment = {
      id: await agreedSetting(store, "deploymentId", crypto.randomUUID()),
      database: describeDatabaseUrl(env.DATABASE_URL),
    };
    await syncDirectory(store, directory);
    if (!env.HOLDFAST_CONFIG) await addDemoSigningKey(store, directory.signingKeys);
    const tenants = directory.tenants.map((t) => t.id);
    log.info({ tenants, configFile }, `directory: ${configFile} (tenants ${tenants.join(", ")})`);
    for (const agent of unsignedAgents(directory))
      log.warn({ agent }, `agent ${agent} has no signingSecret: its deliveries carry no webhook-signature`);
    const redis = await connectRedis(env.redisAddress, log);
    cleanups.add(() => redis.close());
    log.info({}, `redis: ${redis.description}`);
    const claimPrefix = () => claimRedisPrefix(redis.client, redis.address, env.HOLDFAST_QUEUE_PREFIX, deployment);
    await claimPrefix();
    const now = options.now ?? (() => new Date());
    const identity = await takeIdentity(store, env, env.HOLDFAST_HEARTBEAT_INTERVAL, now());
    cleanups.add(async () => identity.stopStartBeat());
    // monitorLastTick: the escalation store's last monitor tick, once the monitor exists (0 until then).
    const metrics = createMetrics({ db: store.db, now, monitorLastTick: () => lastMonitorTickAt(store) });
    const ctx: HandlerContext = {
      store,
      log,
      now,
      events: new HoldfastEvents(),
      faults: crashFaults(env.HOLDFAST_CRASH_AT, env.HOLDFAST_PAUSE_AT, log),
      metrics: metrics.sink,
      drainTimeoutMs: env.HOLDFAST_DRAIN_TIMEOUT,
      instance: identity.instance,
      agentPost: agentPoster(directory.signingKeys),
    };
    metrics.listen(ctx);
    const held = await startWork(ctx, { env, directory, redisUrl: redis.url, cleanups, bootId: identity.bootId });
    const live: LiveMaintenance = { runtime: null };
    const served = await serve(ctx, { options, directory, configFile, redis, metrics, cleanups, live });
    const maintenance = wireMaintenance(ctx, {
      env,
      identity,
      delivery: held.runtime.delivery,
      registry: metrics.registry,
      publishers: served.publishers,
      onBeat: async () => void (await claimPrefix()),
    });
    live.runtime = maintenance;
    cleanups.add(async () => maintenance.close());
    log.info(
      { port: served.port, url: served.url, instance: identity.instance, queuePrefix: env.HOLDFAST_QUEUE_PREFIX },
      `holdfast is serving at ${served.url}${env.HOST === "0.0.0.0" || env.HOST === "::" ? " (and on every interface)" : ""}`,
    );
    const demoLine = await served.web.listening(served.url);
    if (demoLine) log.info({ demo: true }, demoLine);
    const inFlight = () => ({ deliveries: held.runtime.delivery.inFlight() });
    const { http, escalations, port } = served;
    return { ctx, http, redis, escalations, port, inFlight, maintenance, stop: () => cleanups.run() };
  } catch (error) {
    await cleanups.run();
    throw error;
  }
}

interface WorkOptions {
  env: HoldfastEnv;
  /** This run (instance-identity.ts): the owner of its leases. */
  bootId: string;
  directory: DirectoryFile;
  redisUrl: string;
  cleanups: Cleanups;
}

/** Approval expiry, triggers, drains, releases, the delivery loop and retention; rebuilt from the database. */
async function startWork(ctx: HandlerContext, { env, directory, redisUrl, cleanups, bootId }: WorkOptions) {
  const prefix = env.HOLDFAST_QUEUE_PREFIX;
  cleanups.add(await startApprovalScheduling(ctx, { url: redisUrl, prefix }));
  await alignTriggersWithConfig(ctx);
  const transport = httpTransport(undefined, directory.signingKeys);
  cleanups.add(async () => transport.close?.());
  const faults = ctx.faults;
  const runtime = await startHeld(ctx, {
    instanceId: bootId,
    redisUrl,
    prefix,
    faults,
    releaseBatch: env.HOLDFAST_RELEASE_BATCH,
    delivery: { faults, leaseMs: env.HOLDFAST_DELIVERY_LEASE_MS, transport, owner: bootId },
  });
  cleanups.add(() => runtime.stop());
  const { store, log, now } = ctx;
  const retention = await startRetention({ store, redisUrl, prefix, log, now, ...directory.retention });
  cleanups.add(() => retention.close());
  return { runtime };
}

interface ServeOptions {
  options: CreateAppOptions;
  directory: DirectoryFile;
  configFile: string;
  redis: RedisHandle;
  metrics: ReturnType<typeof createMetrics>;
  cleanups: Cleanups;
  live: LiveMaintenance;
}

/** The HTTP API, the console and the chat platforms; then the escalation monitor, which posts into chat. */
async function serve(
  ctx: HandlerContext,
  { options, directory, configFile, redis, metrics, cleanups, live }: ServeOptions,
) {
  const { env } = options;
  const http = buildHttpServer({
    ctx,
    health: () => checkHealth(ctx.store, redis),
    maintenance: () => ({ state: live.runtime?.state() ?? "RUNNING", ready: live.runtime?.ready() ?? true }),
    metrics,
    metricsToken: env.HOLDFAST_METRICS_TOKEN,
    publicUrl: env.HOLDFAST_PUBLIC_URL,
  });
  const web = wireConsole({
    ctx,
    http,
    exampleConfig: env.HOLDFAST_CONFIG ? null : configFile,
    demoKey: directory.signingKeys.get(DEMO_AGENT_ID),
    publicUrl: env.HOLDFAST_PUBLIC_URL,
    attempts: redisAttemptCounter(redis.client, env.HOLDFAST_QUEUE_PREFIX, memoryAttemptCounter()),
  });
  const chat = await startChat({
    env: options.processEnv ?? {},
    ctx,
    http,
    postConversation: conversationPoster(directory.signingKeys),
    consoleLink: web.consoleLink,
  });
  web.mount(chat.router);
  cleanups.add(() => chat.stop());
  const platforms = chat.enabled.length ? chat.enabled.join(", ") : "none: API and console only";
  ctx.log.info({ platforms: chat.enabled }, `chat platforms: ${platforms}`);
  await http.listen({ port: env.PORT, host: env.HOST });
  cleanups.add(() => http.close());
  const address = http.server.address();
  const port = typeof address === "object" && address ? address.port : env.PORT;
  const url = `http://${env.HOST === "0.0.0.0" || env.HOST === "::" ? "127.0.0.1" : env.HOST}:${port}`;
  const escalations = await startEscalations(ctx, {
    publishers: chat.publishers,
    publicUrl: env.HOLDFAST_PUBLIC_URL ?? url, // as the console links
    redisUrl: redis.url,
    prefix: env.HOLDFAST_QUEUE_PREFIX,
    everyMs: env.HOLDFAST_MONITOR_INTERVAL,
  });
  cleanups.add(() => escalations.stop());
  return { http, web, escalations, port, url, publishers: chat.publishers };
}

export class DeploymentMismatchError extends Error {
  readonly code = "deployment_mismatch";
}

/**
 * Every process sharing a database must share the queue prefix: release jobs, job schedulers and the
 * Redis-loss sentinel live under it, so a process on another prefix would never see them. The first process
 * records its prefix; a later one with another refuses to start.
 */
async function agreeOnQueuePrefix(store: Store, prefix: string): Promise<void> {
  const agreed = await agreedSetting(store, "queuePrefix", prefix);
  if (agreed !== prefix) {
    throw new DeploymentMismatchError(
      `HOLDFAST_QUEUE_PREFIX is "${prefix}" but this database's deployment uses "${agreed}": every process on one database must use the same prefix`,
    );
  }
}

async function checkHealth(store: Store, redis: RedisHandle): Promise<HealthReport> {
  const database = await pingDatabase(store).then(
    () => "ok" as const,
    (error: Error) => `unreachable: ${error.message.split("\n")[0]}`,
  );
  const redisCheck = (await redis.ping()) ? ("ok" as const) : "unreachable: no PONG within 1 s";
  return { ok: database === "ok" && redisCheck === "ok", checks: { database, redis: redisCheck } };
}
