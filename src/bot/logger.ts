import pino, { type DestinationStream, type Logger } from "pino";

/** Structured logs; anything that could carry a secret is redacted at the source. */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = {
    level,
    redact: {
      paths: ["req.headers.authorization", "headers.authorization", "*.apiKey", "*.agentKey", "*.token", "*.secret"],
      censor: "[redacted]",
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
