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

/**
 * A record kind: its fields in wire order. `decode` reads them by that order; each `encode` below pushes its
 * values in the same order, and the tests of both sides (test/queue) hold them together.
 */
function recordOf(...fields) {
  return {
    fields,
    width: fields.length,
    decode(values, i) {
      const record = {};
      for (let f = 0; f < fields.length; f++) record[fields[f]] = values[i + f];
      return record;
    },
  };
}

/** A tick, tick thread -> bot; dueAt and jobId may be null. */
export const TickRecord = {
  ...recordOf("id", "triggerId", "dueAt", "jobId", "timestamp", "delay"),
  encode(out, id, job) {
    out.push(id, job.data.triggerId, job.data.dueAt ?? null, job.id ?? null, job.timestamp, job.delay);
  },
};

/** A tick's answer, bot -> tick thread: error is null once the tick is recorded. */
export const AnswerRecord = {
  ...recordOf("id", "error"),
  encode(out, id, error) {
    out.push(id, error);
  },
};

/** A POST, bot -> http thread: a fixed head (keyIndex -1: unsigned), then `headerCount` name/value pairs. */
const SendHead = recordOf("id", "destination", "body", "keyIndex", "webhookId", "headerCount");
export const SendRecord = {
  fields: SendHead.fields,
  encode(out, id, destination, body, keyIndex, webhookId, headers) {
    const names = Object.keys(headers);
    out.push(id, destination, body, keyIndex, webhookId, names.length);
    for (const name of names) out.push(name, headers[name]);
  },
  /** The record at `i`, its headers as a flat name/value array, and where the next record starts. */
  decode(values, i) {
    const send = SendHead.decode(values, i);
    send.next = i + SendHead.width + 2 * send.headerCount;
    send.headers = values.slice(i + SendHead.width, send.next);
    return send;
  },
};

/** A POST's result, http thread -> bot: status (see http-transport.ts), error (null on a status). */
export const ResultRecord = {
  ...recordOf("id", "status", "error"),
  encode(out, id, status, error) {
    out.push(id, status, error);
  },
};
