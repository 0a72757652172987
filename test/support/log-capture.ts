import { Writable } from "node:stream";
import pino from "pino";

/** A pino logger writing its JSON lines into an array a test can read. */
export function capturedLog(level = "info") {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { log: pino({ level }, stream), lines };
}
