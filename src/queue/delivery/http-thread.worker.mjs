// The delivery POSTs, on a thread of their own (started by http-transport.ts). Plain JavaScript so that it
// loads the same way under tsx, vitest and node. It only sends and reports: no state, no rules.
import { parentPort, workerData } from "node:worker_threads";
import { Agent, errors, request } from "undici";

const timeoutMs = workerData.timeoutMs;
// undici on kept-alive connections: about a quarter less CPU per POST than node:http's client, with the
// receiver's share included (measured side by side, 20,000 POSTs at 300 in flight). One request at a time
// per connection: pipelining measured slower, and a broken pipeline would leave several sends uncertain.
const dispatcher = new Agent({
  connections: 64,
  keepAliveTimeout: 30_000,
  headersTimeout: timeoutMs,
  bodyTimeout: timeoutMs,
});

const TIMEOUTS = [errors.HeadersTimeoutError, errors.BodyTimeoutError];

/** Resolves with `{ id, status }` once the response was read, or `{ id, error }` on a network error. */
async function post({ id, destination, body, headers }) {
  try {
    new URL(destination);
  } catch {
    return { id, error: `invalid destination URL: ${destination}` };
  }
  try {
    const response = await request(destination, { method: "POST", headers, body, dispatcher });
    await response.body.dump();
    return { id, status: response.statusCode };
  } catch (error) {
    if (TIMEOUTS.some((kind) => error instanceof kind)) return { id, error: `no answer within ${timeoutMs} ms` };
    return { id, error: error.message };
  }
}

// Results go back in batches: one message per turn of this thread's event loop, not one per response.
let results = [];
const flush = () => {
  const batch = results;
  results = [];
  parentPort.postMessage(batch);
};
parentPort.on("message", (sends) => {
  for (const send of sends) {
    post(send).then((result) => {
      if (results.push(result) === 1) setImmediate(flush);
    });
  }
});
