import v8 from "node:v8";

/**
 * V8 settings of the bot's process, set before anything runs; V8's flags hold for the worker threads too.
 *
 * - Prisma's query compiler is WebAssembly, and V8 recompiles each of its functions with TurboFan once it has run
 *   a little (the default budget): at start that was about 50 MB of compiled code and compiler memory kept for the
 *   process's life, for queries whose plans Prisma caches anyway. Only a function that runs a great deal is
 *   optimised now; the hot path is SQL of our own (store/connection/sql.ts), not the query compiler.
 * - The old generation may grow to 1.5 times what was live after a full collection (V8 lets it grow up to four
 *   times when collections are fast). A release's burst promotes much short-lived garbage (claims and rows that
 *   wait in queues for a second or two): with V8's default, the main thread's old space grew to 400-690 MB in
 *   `npm run bench:load` for a live set of 60-130 MB, and the process kept that memory after the burst. With 1.5
 *   it peaked at 255 MB, and the release's throughput (`npm run bench:quick -- c postgresql`, four runs
 *   alternately) did not change measurably.
 * - The main thread's young generation is set by `--max-semi-space-size` on node's command line (`npm start`:
 *   16 MB, docs/performance.md). V8 reads that flag again for every worker thread it starts, and where it is set
 *   a thread's own `resourceLimits` are ignored; it is cleared here, so that the worker threads get the young
 *   generation of queue/thread-limits.ts. The main thread's heap is already made and keeps its own.
 */
export function tuneV8(): void {
  v8.setFlagsFromString("--wasm-tiering-budget=1000000000");
  v8.setFlagsFromString("--heap-growing-percent=50");
  v8.setFlagsFromString("--max-semi-space-size=0");
}
