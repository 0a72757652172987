import { defineConfig } from "vitest/config";

/** The chaos suite (`npm run test:chaos`): its own processes and servers, one file, entries in sequence. */
export default defineConfig({
  test: {
    include: ["test/chaos/**/*.test.ts"],
    globalSetup: ["test/support/build-dist.ts"],
    testTimeout: 180_000,
    hookTimeout: 120_000,
    maxWorkers: 1,
  },
});
