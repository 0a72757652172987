import {
  SIGN_IN_ATTEMPTS_PER_ADDRESS,
  SIGN_IN_WINDOW_MS,
  SIGN_INS_PER_USER,
  signInWindowKey,
  signInWindowLeftMs,
} from "../../../policy/sign-in-limits";
import type { HandlerContext } from "../context";

/**
 * Counts hits of a key and answers how many the key has now, the key forgotten after `ttlMs`. The
 * composition root gives one shared by every process (on Redis, queue/attempt-counter.ts); without one, each
 * process counts on its own (`memoryAttemptCounter`).
 */
export interface AttemptCounter {
  hit(key: string, ttlMs: number): Promise<number>;
}

/** A counter in this process's memory: the limits then hold per process. */
export function memoryAttemptCounter(): AttemptCounter {
  const counts = new Map<string, { n: number; until: number }>();
  return {
    async hit(key, ttlMs) {
      const now = Date.now();
      for (const [k, v] of counts) if (v.until <= now) counts.delete(k);
      const entry = counts.get(key) ?? { n: 0, until: now + ttlMs };
      entry.n += 1;
      counts.set(key, entry);
      return entry.n;
    },
  };
}

/** Over the limit: the seconds until another attempt is taken. */
export type SignInThrottle = { retryAfterS: number } | null;

function throttled(ctx: HandlerContext): { retryAfterS: number } {
  return { retryAfterS: Math.ceil(signInWindowLeftMs(ctx.now()) / 1000) };
}

const LIMITS = { address: SIGN_IN_ATTEMPTS_PER_ADDRESS, user: SIGN_INS_PER_USER } as const;

/**
 * Counts one sign-in attempt from an address (every attempt), or one sign-in of a user (an attempt that named
 * them); a throttle once that address or user is past its limit this minute.
 */
export async function countSignIn(
  ctx: HandlerContext,
  counter: AttemptCounter,
  kind: keyof typeof LIMITS,
  who: string,
): Promise<SignInThrottle> {
  const n = await counter.hit(signInWindowKey(kind, who, ctx.now()), SIGN_IN_WINDOW_MS);
  if (n <= LIMITS[kind]) return null;
  if (n === LIMITS[kind] + 1)
    ctx.log.warn({ [kind === "user" ? "actor" : "address"]: who }, `console sign-in throttled for a ${kind}`);
  return throttled(ctx);
}
