// The one message protocol between the bot's thread and its worker threads (tick-thread, http-thread). Plain
// JavaScript so that both sides load it the same way under tsx, vitest and node.
//
// Records go over as flat arrays of values, many records to one message: structured cloning copies an
// object's keys with every record (about 6 µs per send there and back against about 2.4 as flat values).
// Each record kind below defines its field order once, in `encode` and `decode`.

/**
 * Values written in one turn of the event loop go over as one message: the first write of a turn schedules
 * the flush (`defer`: queueMicrotask on the bot's thread, setImmediate on a worker thread, so the answers of
 * one Redis read or one committed batch share a message).
 */
export class TurnBatch {
  /** @param {(run: () => void) => void} defer  @param {(values: unknown[]) => void} flush */
  constructor(defer, flush) {
    this.values = [];
    this.defer = defer;
    this.run = () => {
      const values = this.values;
      this.values = [];
      flush(values);
    };
  }

  /** The array this turn's records are pushed onto. */
  open() {
    if (this.values.length === 0) this.defer(this.run);
    return this.values;
  }
}

/** A tick, tick thread -> bot: id, triggerId, dueAt (or null), jobId (or null), timestamp, delay. */
export const TickRecord = {
  width: 6,
  encode(out, id, job) {
    out.push(id, job.data.triggerId, job.data.dueAt ?? null, job.id ?? null, job.timestamp, job.delay);
  },
  decode(values, i) {
    return {
      id: values[i],
      triggerId: values[i + 1],
      dueAt: values[i + 2],
      jobId: values[i + 3],
      timestamp: values[i + 4],
      delay: values[i + 5],
    };
  },
};

/** A tick's answer, bot -> tick thread: id, error (null once recorded). */
export const AnswerRecord = {
  width: 2,
  encode(out, id, error) {
    out.push(id, error);
  },
  decode(values, i) {
    return { id: values[i], error: values[i + 1] };
  },
};

/**
 * A POST, bot -> http thread: id, destination, body, the signing key's index (-1: unsigned), the webhook id,
 * the number of headers, then each header's name and value.
 */
export const SendRecord = {
  encode(out, id, destination, body, keyIndex, webhookId, headers) {
    const names = Object.keys(headers);
    out.push(id, destination, body, keyIndex, webhookId, names.length);
    for (const name of names) out.push(name, headers[name]);
  },
  /** The record at `i`, its headers as a flat name/value array, and where the next record starts. */
  decode(values, i) {
    const end = i + 6 + 2 * values[i + 5];
    return {
      id: values[i],
      destination: values[i + 1],
      body: values[i + 2],
      keyIndex: values[i + 3],
      webhookId: values[i + 4],
      headers: values.slice(i + 6, end),
      next: end,
    };
  },
};

/** A POST's result, http thread -> bot: id, status (see http-transport.ts), error (null on a status). */
export const ResultRecord = {
  width: 3,
  encode(out, id, status, error) {
    out.push(id, status, error);
  },
  decode(values, i) {
    return { id: values[i], status: values[i + 1], error: values[i + 2] };
  },
};
