import type { RedisClient } from "./redis-address.mjs";

/** Who owns a queue prefix on a Redis: the deployment id (from its database) and, for people, the database. */
export interface DeploymentClaim {
  id: string;
  database: string;
}

export class RedisPrefixTakenError extends Error {
  readonly code = "redis_prefix_taken";
}

/** The key under the queue prefix that names the deployment using it (the prefix's hash tag keeps it in one slot). */
export const deploymentKey = (prefix: string): string => `${prefix}:deployment`;

/**
 * One Redis prefix, one deployment: writes this deployment's claim under the prefix unless one is there,
 * and refuses (throws) when it names another deployment. A Redis that lost its data has no key, so it is
 * simply claimed again; the heartbeat calls this again for that reason.
 */
export async function claimRedisPrefix(
  redis: RedisClient,
  redisDescription: string,
  prefix: string,
  claim: DeploymentClaim,
): Promise<"claimed" | "ours"> {
  const key = deploymentKey(prefix);
  const written = await redis.set(key, JSON.stringify(claim), "NX");
  if (written === "OK") return "claimed";
  const found = await redis.get(key);
  let other: Partial<DeploymentClaim> = {};
  try {
    other = JSON.parse(found ?? "{}") as Partial<DeploymentClaim>;
  } catch {
    // a value that is not ours is another deployment's too
  }
  if (other.id === claim.id) return "ours";
  if (found === null) return claimRedisPrefix(redis, redisDescription, prefix, claim); // gone in between
  throw new RedisPrefixTakenError(
    `redis ${redisDescription} prefix ${prefix} is used by another Holdfast deployment (database ${other.database ?? "unknown"}); give this one its own HOLDFAST_QUEUE_PREFIX or its own Redis`,
  );
}
