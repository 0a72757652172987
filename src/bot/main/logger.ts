import pino, { type DestinationStream, type Logger } from "pino";
import pretty from "pino-pretty";

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
    // One line per event: the message says the fact; an error's text is added, the other fields stay in JSON.
    const stream = pretty({
      sync: true,
      colorize: true,
      translateTime: "HH:MM:ss",
      hideObject: true,
      messageFormat: (line, key) => (typeof line.err === "string" ? `${line[key]}: ${line.err}` : String(line[key])),
    });
    return pino(options, stream);
  }
  return destination && destination !== "json" ? pino(options, destination) : pino(options);
}
