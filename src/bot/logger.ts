import pino, { type Logger } from "pino";

/** Structured logs; anything that could carry a secret is redacted at the source. */
export function createLogger(level: string): Logger {
  return pino({
    level,
    redact: {
      paths: ["req.headers.authorization", "headers.authorization", "*.apiKey", "*.agentKey", "*.token", "*.secret"],
      censor: "[redacted]",
    },
  });
}
