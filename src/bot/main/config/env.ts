import { z } from "zod";
import { DEFAULT_DRAIN_TIMEOUT_MS } from "../../../policy/drain";
import { parseDurationMs } from "../../../policy/duration";
import { FAULT_POINTS } from "../../../policy/faults";
import { DEFAULT_HEARTBEAT_MS } from "../../../policy/maintenance";
import { DEFAULT_DELIVERY_LEASE_MS } from "../../../queue/delivery/options";
import { DEFAULT_RELEASE_BATCH } from "../../../queue/held/run-release";
import { unsupportedDatabaseUrl } from "../../../store/connection/database-url";
import { redisAddressFromEnv } from "./redis-config";
import { secretFromEnv } from "./secrets";

const duration = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .refine((v) => parseDurationMs(v) !== null, "a duration such as 30s")
    .transform((v) => parseDurationMs(v)!);
/** The port when PORT is unset. */
export const DEFAULT_PORT = 3000;

const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(DEFAULT_PORT),
  /** Default 0.0.0.0, but 127.0.0.1 with the example directory: its demo keys must not face a network. */
  HOST: z.string().min(1).optional(),
  DATABASE_URL: z
    .string()
    .default("file:./data/holdfast.db")
    .superRefine((url, ctx) => {
      const problem = unsupportedDatabaseUrl(url);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    }),
  /** One Redis server; or REDIS_SENTINELS (+ REDIS_SENTINEL_NAME), or REDIS_CLUSTER_NODES (redis-config.ts). */
  REDIS_URL: z.string().optional(),
  HOLDFAST_CONFIG: z.string().optional(),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** Unset: readable lines on a terminal, JSON otherwise. */
  LOG_FORMAT: z.enum(["json", "pretty"]).optional(),
  /** How long a delivery claim is exclusive before another worker may take the item over. */
  HOLDFAST_DELIVERY_LEASE_MS: z.coerce.number().int().min(100).default(DEFAULT_DELIVERY_LEASE_MS),
  /** Test-only: kill the process with SIGKILL at this point (see src/policy/faults.ts). */
  HOLDFAST_CRASH_AT: z.enum(FAULT_POINTS).optional(),
  /** Test-only: log one line and hang at this point, for a driver's signal (see src/policy/faults.ts). */
  HOLDFAST_PAUSE_AT: z.enum(FAULT_POINTS).optional(),
  /** How long a drain (a pause, a maintenance window, a SIGTERM) waits for in-flight work ("30s", "2m" or ms). */
  HOLDFAST_DRAIN_TIMEOUT: duration(`${DEFAULT_DRAIN_TIMEOUT_MS / 1000}s`),
  /** After a SIGTERM, keep taking work this long (load balancers that remove an endpoint late). */
  HOLDFAST_DRAIN_DELAY: duration("0s"),
  /** How often each process writes its heartbeat row (three missed: the process is shown `lost`). */
  HOLDFAST_HEARTBEAT_INTERVAL: z
    .string()
    .default(`${DEFAULT_HEARTBEAT_MS / 1000}s`)
    .refine((v) => (parseDurationMs(v) ?? 0) >= 100, "a duration of at least 100ms, such as 5s")
    .transform((v) => parseDurationMs(v)!),
  /** How often the stale-wait monitor ticks ("30s", "1s", "2m" or ms). */
  HOLDFAST_MONITOR_INTERVAL: z
    .string()
    .default("30s")
    .refine((v) => (parseDurationMs(v) ?? 0) >= 100, "a duration of at least 100ms, such as 30s")
    .transform((v) => parseDurationMs(v)!),
  /** The address people reach the bot at: console links and the Open links on cards (default: where it listens). */
  HOLDFAST_PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** At most this many triggers' held rows per release step (one transaction each). */
  HOLDFAST_RELEASE_BATCH: z.coerce.number().int().min(1).max(1000).default(DEFAULT_RELEASE_BATCH),
  /**
   * BullMQ key prefix: the same on every process of one deployment (checked against the database at start);
   * another deployment on the same Redis takes another. The braces are a Redis Cluster hash tag.
   */
  HOLDFAST_QUEUE_PREFIX: z
    .string()
    .regex(/^\{?[A-Za-z0-9_-]+\}?$/, "letters, digits, _ and -, optionally in braces: {holdfast}")
    .default("{holdfast}"),
  /** A name for this process in logs, leases and GET /v1/instances (default: host name and a short suffix). */
  HOLDFAST_INSTANCE: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/)
    .optional(),
});

export type HoldfastEnv = z.infer<typeof EnvSchema> & {
  HOST: string;
  /** When set, `GET /metrics` wants `Authorization: Bearer <token>` (HOLDFAST_METRICS_TOKEN or _FILE). */
  HOLDFAST_METRICS_TOKEN?: string;
  /** The Redis address of the topology the environment names (redis-address.mjs); unset: the local Redis. */
  redisAddress?: string;
};

/** Where the bot listens when HOST is unset: loopback only while it runs on the example's demo keys. */
export const EXAMPLE_CONFIG_HOST = "127.0.0.1";
export const DEFAULT_HOST = "0.0.0.0";

export class ConfigError extends Error {
  readonly code = "config_invalid";
}

/** The environment is a parameter, never read from a global elsewhere. */
export function parseEnv(env: NodeJS.ProcessEnv): HoldfastEnv {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`environment variable ${String(issue?.path[0])}: ${issue?.message}`);
  }
  const host = parsed.data.HOST ?? (parsed.data.HOLDFAST_CONFIG ? DEFAULT_HOST : EXAMPLE_CONFIG_HOST);
  let metricsToken: string | undefined;
  try {
    metricsToken = secretFromEnv(env, "HOLDFAST_METRICS_TOKEN");
  } catch (error) {
    throw new ConfigError(`environment variable HOLDFAST_METRICS_TOKEN_FILE: ${(error as Error).message}`);
  }
  const redis = redisAddressFromEnv(env, parsed.data.HOLDFAST_QUEUE_PREFIX);
  if (redis.error !== undefined) throw new ConfigError(`environment variable ${redis.error}`);
  return {
    ...parsed.data,
    HOST: host,
    ...(metricsToken ? { HOLDFAST_METRICS_TOKEN: metricsToken } : {}),
    ...(redis.address ? { redisAddress: redis.address } : {}),
  };
}
