import { startApp } from "./app";
import { parseEnv } from "./config/env";
import { createLogger } from "./logger";
import { installProcessGuard } from "./process-guard";

const env = parseEnv(process.env);
const log = createLogger(env.LOG_LEVEL);
installProcessGuard(process, log);

try {
  if (!process.env.HOST && !env.HOLDFAST_CONFIG) {
    log.warn(
      { host: env.HOST },
      "the example directory's demo keys are live, so the bot listens on 127.0.0.1 only; set HOST=0.0.0.0 (and HOLDFAST_CONFIG) to listen publicly",
    );
  }
  const app = await startApp({ env, log, processEnv: process.env });
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, "shutting down");
    await app.stop();
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
} catch (error) {
  log.fatal({ code: (error as { code?: string }).code }, (error as Error).message);
  process.exit(1);
}
