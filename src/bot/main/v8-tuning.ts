import v8 from "node:v8";

/**
 * Prisma's query compiler is WebAssembly, and V8 recompiles each of its functions with TurboFan once it has run a
 * little (the default budget): at start that was about 50 MB of compiled code and compiler memory kept for the
 * process's life, for queries whose plans Prisma caches anyway. Only a function that runs a great deal is
 * optimised now; the hot path is SQL of our own (store/connection/sql.ts), not the query compiler.
 */
export function tuneV8(): void {
  v8.setFlagsFromString("--wasm-tiering-budget=1000000000");
}
