import { createRequire } from "node:module";
import pino, { type DestinationStream, type Logger } from "pino";
import { logLine } from "./log-line";

export type LogFormat = "json" | "pretty";

/**
 * Readable lines for a person at a terminal, JSON for everything else (a supervisor, a file, a log shipper,
 * the tests): LOG_FORMAT decides when set, else whether the output is a terminal.
 */
export const logFormatFor = (format: LogFormat | undefined, isTerminal: boolean): LogFormat =>
  format ?? (isTerminal ? "pretty" : "json");

/** Structured logs; anything that could carry a secret is redacted at the source, in either format. */
export function createLogger(level: string, destination?: DestinationStream | LogFormat): Logger {
  const options = {
    level,
    redact: {
      paths: ["req.headers.authorization", "headers.authorization", "*.apiKey", "*.agentKey", "*.token", "*.secret"],
      censor: "[redacted]",
    },
  };
  if (destination === "pretty") {
    // Synchronous, in this thread: the last lines before an exit are written, not lost in a transport worker.
    // One line per event: the message, an error's text, then the event's fields as name=value (log-line.ts).
    // Required here, only for a terminal: a deployment logging JSON never loads pino-pretty and what it pulls in.
    const pretty = createRequire(import.meta.url)("pino-pretty") as typeof import("pino-pretty");
    const stream = pretty({
      sync: true,
      colorize: true,
      translateTime: "HH:MM:ss",
      hideObject: true,
      ignore: "pid,hostname",
      messageFormat: (line, key) => logLine(line, key),
    });
    return pino(options, stream);
  }
  return destination && destination !== "json" ? pino(options, destination) : pino(options);
}
