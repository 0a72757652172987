import { execFileSync } from "node:child_process";

/**
 * Builds dist/ (skipped when it is newer than every source file): test bots run the built bundle, as `npm start`
 * does. Under the TypeScript loader each start took 1.1-1.7 s longer on a 2-core machine, and the suites start
 * a bot a few hundred times.
 */
export default function setup(): void {
  execFileSync(process.execPath, ["scripts/build.mjs"], { stdio: "inherit" });
}
