import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // The chaos suite runs on its own (npm run test:chaos, vitest.chaos.config.ts).
    exclude: ["**/node_modules/**", "test/chaos/**"],
    globalSetup: ["test/support/global-setup.ts", "test/support/build-dist.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each file gets its own databases; two cores do not gain from more parallel files.
    maxWorkers: 2,
  },
});
