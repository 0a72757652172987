import type { ResourceLimits } from "node:worker_threads";

/**
 * The bot's worker threads (tick intake, delivery POSTs) get a young generation of 48 MB (a 16 MB semi-space),
 * as the main thread gets through `--max-semi-space-size=16` in the npm scripts (`tuneV8` clears that flag for
 * the threads, which would otherwise take it too). Their objects live across many scavenges under load (600
 * ticks and up to 1,500 sends in flight), and each scavenge copies what survives; V8 grows a thread's young
 * generation up to this size while its survivors grow, and gives it back when its allocations slow down. A
 * 32 MB semi-space on every thread gave the same bench figures within the noise and held 40 MB more per
 * process after a release (docs/performance.md, "Memory under load").
 */
export const THREAD_RESOURCE_LIMITS: ResourceLimits = { maxYoungGenerationSizeMb: 48 };
