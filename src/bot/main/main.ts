import { startApp } from "./app";
import { parseEnv } from "./config/env";
import { createLogger, logFormatFor } from "./logger";
import { installProcessGuard } from "./process-guard";
import { holdSignalsDuringStart, stopOnSignals } from "./shutdown";
import { tuneV8 } from "./v8-tuning";

tuneV8();

// LOG_FORMAT is read before the rest is validated, so even a bad environment is reported readably.
const format = logFormatFor(
  process.env.LOG_FORMAT === "json" || process.env.LOG_FORMAT === "pretty" ? process.env.LOG_FORMAT : undefined,
  Boolean(process.stdout.isTTY),
);
const level = process.env.LOG_LEVEL ?? "info";
let log = createLogger(/^(fatal|error|warn|info|debug|trace|silent)$/.test(level) ? level : "info", format);

try {
  const env = parseEnv(process.env);
  log = createLogger(env.LOG_LEVEL, format);
  installProcessGuard(process, log);
  if (!process.env.HOST && !env.HOLDFAST_CONFIG) {
    log.warn(
      { host: env.HOST },
      "the example directory's demo keys are live, so the bot listens on 127.0.0.1 only; set HOST=0.0.0.0 (and HOLDFAST_CONFIG) to listen publicly",
    );
  }
  const exit = (code: number) => process.exit(code);
  const starting = holdSignalsDuringStart(process, exit);
  const app = await startApp({ env, log, processEnv: process.env });
  const stop = stopOnSignals(process, app, log, {
    budgetMs: env.HOLDFAST_DRAIN_TIMEOUT,
    delayMs: env.HOLDFAST_DRAIN_DELAY,
    exit,
  });
  const early = starting.release();
  if (early) stop(early);
} catch (error) {
  log.fatal({ code: (error as { code?: string }).code }, (error as Error).message);
  process.exit(1);
}
