import type { RedisClient } from "./redis-address.mjs";

/** How long a count may take before the caller counts in its own memory instead. */
const ANSWER_WITHIN_MS = 500;

/**
 * A counter every process shares (the console's sign-in limits): INCR and the key's lifetime in one MULTI
 * (the key names its window, so a lifetime renewed by each hit only keeps it a window longer). Redis slow or away: `fallback` counts instead (the limits then hold per process),
 * so a sign-in never waits on Redis.
 */
export function redisAttemptCounter(
  client: RedisClient,
  prefix: string,
  fallback: { hit(key: string, ttlMs: number): Promise<number> },
) {
  return {
    async hit(key: string, ttlMs: number): Promise<number> {
      const name = `${prefix}:attempts:${key}`;
      const counted = client
        .multi()
        .incr(name)
        .pexpire(name, ttlMs)
        .exec()
        .then((replies) => {
          const n = replies?.[0]?.[1];
          if (typeof n !== "number") throw new Error("no count");
          return n;
        });
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error("late")), ANSWER_WITHIN_MS);
      });
      try {
        return await Promise.race([counted, late]);
      } catch {
        counted.catch(() => {});
        return fallback.hit(key, ttlMs);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
