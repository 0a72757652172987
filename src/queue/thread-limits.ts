import type { ResourceLimits } from "node:worker_threads";

/**
 * The bot's worker threads (tick intake, delivery POSTs) get a young generation of 96 MB (a 32 MB
 * semi-space) instead of V8's 48. Their objects live across many scavenges under load (600 ticks and up to
 * 1,500 sends in flight), and each scavenge copies what survives: with the larger space the scavenge pauses
 * of a 10,000-tick burst took about 0.8 s instead of 1.35 s across the threads (bench/held.ts, --trace-gc).
 * The main thread gets the same through `--max-semi-space-size=32` in the npm scripts; where that flag is given,
 * it holds for every thread (V8's flags are the process's) and this limit has no effect.
 */
export const THREAD_RESOURCE_LIMITS: ResourceLimits = { maxYoungGenerationSizeMb: 96 };
