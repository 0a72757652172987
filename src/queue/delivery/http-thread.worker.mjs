// The delivery POSTs, on a thread of their own (started by http-transport.ts). Plain JavaScript so that it
// loads the same way under tsx, vitest and node. It sends, signs and reports, and keeps no state; the rules it
// applies (the address rule, the signature) are the plain-JavaScript modules of src/policy.
import crypto from "node:crypto";
import { parentPort, workerData } from "node:worker_threads";
import { Agent, errors } from "undici";
import { signatureHeaders } from "../../policy/webhook-signature.mjs";
import { ResultRecord, SendRecord, TurnBatch } from "../threads/protocol.mjs";
import { ADDRESS_REFUSED, guardedLookup, sendTimeRefusal } from "./guarded-lookup.mjs";

const timeoutMs = workerData.timeoutMs;
// The agents' signing keys, by the index the main thread sends with each POST (-1: unsigned). They arrive
// once, in workerData, and are never part of a message or a log line.
const keys = workerData.signingKeys.map((bytes) => crypto.createSecretKey(Buffer.from(bytes)));
// undici on kept-alive connections: about a quarter less CPU per POST than node:http's client, with the
// receiver's share included (measured side by side, 20,000 POSTs at 300 in flight). One request at a time
// per connection: pipelining measured slower, and a broken pipeline would leave several sends uncertain.
const dispatcher = new Agent({
  connections: 64,
  keepAliveTimeout: 30_000,
  headersTimeout: timeoutMs,
  bodyTimeout: timeoutMs,
  connect: { lookup: guardedLookup },
});

const TIMEOUTS = [errors.HeadersTimeoutError, errors.BodyTimeoutError];
/**
 * Result codes in the status slot for a send that failed before any answer (see http-transport.ts); an
 * address the rule refuses is never sendable.
 */
const SENT_NO_ANSWER = 0;
const NOT_SENT = -1;
const NEVER_SENDABLE = -2;

/**
 * Resolves with `{ status }` once the response was read, or `{ status: code, error }` on a network error,
 * the code saying whether the request had been written in full: an error before that (a refused
 * connection, DNS, TLS, a socket lost mid-write) means the destination never got a request to act on.
 * Through `dispatch` with a bare handler rather than `request`: only the status matters, and without the
 * response stream and its promises a POST cost about 41 µs of CPU instead of 55, the receiver's included
 * (same run). The handler has the classic shape because only that one hears `onRequestSent`.
 */
function post(destination, body, headers) {
  let url;
  try {
    url = new URL(destination);
  } catch {
    return Promise.resolve({ status: NEVER_SENDABLE, error: `invalid destination URL: ${destination}` });
  }
  const refusal = sendTimeRefusal(destination);
  if (refusal) return Promise.resolve({ status: NEVER_SENDABLE, error: refusal });
  return new Promise((resolve) => {
    let status = 0;
    let written = false;
    const failed = (error) =>
      resolve({
        // A refused address was never connected to: nothing was sent, and sending again cannot help.
        status: error.code === ADDRESS_REFUSED ? NEVER_SENDABLE : written ? SENT_NO_ANSWER : NOT_SENT,
        error: TIMEOUTS.some((kind) => error instanceof kind)
          ? `no answer within ${timeoutMs} ms`
          : error.code === ADDRESS_REFUSED
            ? error.message
            : [error.code, error.message].filter(Boolean).join(" "),
      });
    try {
      dispatcher.dispatch(
        { origin: url.origin, path: url.pathname + url.search, method: "POST", headers, body },
        {
          onConnect() {},
          onRequestSent() {
            written = true;
          },
          onHeaders(statusCode) {
            written = true; // an answer can come before the body is all written
            status = statusCode;
            return true;
          },
          onData: () => true,
          onComplete() {
            resolve({ status });
          },
          onError: failed,
        },
      );
    } catch (error) {
      failed(error);
    }
  });
}

// Results go back in batches: one message per turn of this thread's event loop, not one per response.
const results = new TurnBatch(setImmediate, (batch) => parentPort.postMessage(batch));
parentPort.on("message", (sends) => {
  for (let i = 0; i < sends.length; ) {
    const { id, destination, body, keyIndex, webhookId, headers, next } = SendRecord.decode(sends, i);
    if (keyIndex >= 0) {
      const signed = signatureHeaders(keys[keyIndex], webhookId, Math.floor(Date.now() / 1000), body);
      for (const name in signed) headers.push(name, signed[name]);
    }
    i = next;
    post(destination, body, headers).then(({ status, error }) => {
      ResultRecord.encode(results.open(), id, status, error ?? null);
    });
  }
});
