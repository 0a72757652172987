import { clusterAddress, parseHostList, sentinelAddress } from "../../../queue/redis-address.mjs";
import { secretFromEnv } from "./secrets";

/** Where a Redis topology is configured: at most one of these may be set. */
const TOPOLOGY_VARIABLES = ["REDIS_URL", "REDIS_SENTINELS", "REDIS_CLUSTER_NODES"] as const;

/** A Redis Cluster hash tag at the start of the prefix: every key of the deployment then lands in one slot. */
export const hasHashTag = (prefix: string): boolean => /^\{[^{}]+\}/.test(prefix);

/**
 * The Redis address (see src/queue/redis-address.mjs) the environment names, undefined when none is set (the
 * local Redis), or a message saying what is wrong: more than one topology, a sentinel list without its group's
 * name, a host list that is not host:port, or a Cluster under a queue prefix without a hash tag.
 */
export function redisAddressFromEnv(
  env: NodeJS.ProcessEnv,
  queuePrefix: string,
): { address?: string; error?: undefined } | { error: string } {
  const set = TOPOLOGY_VARIABLES.filter((name) => env[name]);
  if (set.length > 1) return { error: `${set.join(" and ")}: set one Redis topology, not ${set.length}` };
  if (env.REDIS_SENTINELS) {
    const list = parseHostList(env.REDIS_SENTINELS);
    if (list.error !== undefined) return { error: `REDIS_SENTINELS: ${list.error}` };
    const name = env.REDIS_SENTINEL_NAME;
    if (!name) return { error: "REDIS_SENTINEL_NAME: the name the sentinels monitor (REDIS_SENTINELS is set)" };
    let password: string | undefined;
    try {
      password = secretFromEnv(env, "REDIS_SENTINEL_PASSWORD");
    } catch (error) {
      return { error: `REDIS_SENTINEL_PASSWORD_FILE: ${(error as Error).message}` };
    }
    return { address: sentinelAddress({ sentinels: list.hosts, name, password }) };
  }
  if (env.REDIS_CLUSTER_NODES) {
    const list = parseHostList(env.REDIS_CLUSTER_NODES);
    if (list.error !== undefined) return { error: `REDIS_CLUSTER_NODES: ${list.error}` };
    if (!hasHashTag(queuePrefix)) {
      return {
        error: `HOLDFAST_QUEUE_PREFIX: "${queuePrefix}" has no hash tag; on a Cluster every key must share one, as in {${queuePrefix.replace(/[{}]/g, "")}}`,
      };
    }
    return { address: clusterAddress(list.hosts) };
  }
  return { address: env.REDIS_URL || undefined };
}
