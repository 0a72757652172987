// The delivery POSTs, on a thread of their own (started by http-transport.ts). Plain JavaScript so that it
// loads the same way under tsx, vitest and node. It sends, signs and reports, and keeps no state; the rules it
// applies (the address rule, the signature) are the plain-JavaScript modules of src/policy.
import crypto from "node:crypto";
import { parentPort, workerData } from "node:worker_threads";
import { Agent, errors } from "undici";
import { signatureHeaders } from "../../policy/webhook-signature.mjs";
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
/** The status reported for a send refused by the address rule (see http-transport.ts). */
const REFUSED = -1;

/**
 * Resolves with `{ status }` once the response was read, or `{ error }` on a network error. Through
 * `dispatch` with a bare handler rather than `request`: only the status matters, and without the response
 * stream and its promises a POST cost about 41 µs of CPU instead of 55, the receiver's included (same run).
 */
function post(destination, body, headers) {
  let url;
  try {
    url = new URL(destination);
  } catch {
    return Promise.resolve({ error: `invalid destination URL: ${destination}` });
  }
  const refusal = sendTimeRefusal(destination);
  if (refusal) return Promise.resolve({ status: REFUSED, error: refusal });
  return new Promise((resolve) => {
    let status = 0;
    const failed = (error) =>
      resolve({
        // A refused address never connected: nothing was sent, and sending again cannot help.
        ...(error.code === ADDRESS_REFUSED ? { status: REFUSED } : {}),
        error: TIMEOUTS.some((kind) => error instanceof kind) ? `no answer within ${timeoutMs} ms` : error.message,
      });
    try {
      dispatcher.dispatch(
        { origin: url.origin, path: url.pathname + url.search, method: "POST", headers, body },
        {
          onRequestStart() {},
          onResponseStart(_controller, statusCode) {
            status = statusCode;
          },
          onResponseData() {},
          onResponseEnd() {
            resolve({ status });
          },
          onResponseError: (_controller, error) => failed(error),
        },
      );
    } catch (error) {
      failed(error);
    }
  });
}

// Messages are flat arrays (see http-transport.ts). Results go back in batches: one message per turn of this
// thread's event loop, not one per response.
let results = [];
const flush = () => {
  const batch = results;
  results = [];
  parentPort.postMessage(batch);
};
parentPort.on("message", (sends) => {
  for (let i = 0; i < sends.length; ) {
    const id = sends[i];
    const destination = sends[i + 1];
    const body = sends[i + 2];
    const keyIndex = sends[i + 3];
    const headers = sends.slice(i + 6, i + 6 + 2 * sends[i + 5]);
    if (keyIndex >= 0) {
      const signed = signatureHeaders(keys[keyIndex], sends[i + 4], Math.floor(Date.now() / 1000), body);
      for (const name in signed) headers.push(name, signed[name]);
    }
    i += 6 + 2 * sends[i + 5];
    post(destination, body, headers).then(({ status, error }) => {
      if (results.push(id, status ?? 0, error ?? null) === 3) setImmediate(flush);
    });
  }
});
