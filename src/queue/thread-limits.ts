import type { ResourceLimits } from "node:worker_threads";

/**
 * The bot's worker threads (tick intake, delivery POSTs) get a young generation of 24 MB (an 8 MB semi-space);
 * the main thread gets a 16 MB semi-space through `--max-semi-space-size=16` in the npm scripts (`tuneV8`
 * clears that flag for the threads, which would otherwise take it too). Their objects live across many
 * scavenges under load (600 ticks and up to 1,500 sends in flight), and each scavenge copies what survives; V8
 * grows a thread's young generation up to this size while its survivors grow. In six alternating pairs of
 * runs (docs/performance.md, "2026-12-07, seventh"), 24 MB against 48 held the process's RSS after a release of
 * 10,000 agents at a median of 290 MB against 303, and the held-work bench's ratios on both databases within
 * their noise. A 32 MB semi-space on every thread held 40 MB more per process than 16 MB.
 */
export const THREAD_RESOURCE_LIMITS: ResourceLimits = { maxYoungGenerationSizeMb: 24 };
