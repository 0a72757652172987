// The delivery POSTs, on a thread of their own (started by http-transport.ts). Plain JavaScript so that it
// loads the same way under tsx, vitest and node. It only sends and reports: no state, no rules.
import http from "node:http";
import https from "node:https";
import { parentPort, workerData } from "node:worker_threads";

const timeoutMs = workerData.timeoutMs;
// Kept-alive connections: a new connection per POST costs more CPU than the rest of the delivery step.
const agents = {
  "http:": new http.Agent({ keepAlive: true, maxSockets: 256 }),
  "https:": new https.Agent({ keepAlive: true, maxSockets: 256 }),
};

/** Resolves with `{ id, status }` once the response was read, or `{ id, error }` on a network error. */
function post({ id, destination, body, headers }) {
  return new Promise((resolve) => {
    let url;
    try {
      url = new URL(destination);
    } catch {
      resolve({ id, error: `invalid destination URL: ${destination}` });
      return;
    }
    const client = url.protocol === "https:" ? https : http;
    const request = client.request(
      url,
      {
        method: "POST",
        headers: { ...headers, "content-length": Buffer.byteLength(body) },
        agent: agents[url.protocol],
      },
      (response) => {
        response.resume();
        response.on("end", () => resolve({ id, status: response.statusCode ?? 0 }));
        response.on("error", (error) => resolve({ id, error: error.message }));
      },
    );
    request.setTimeout(timeoutMs, () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    request.on("error", (error) => resolve({ id, error: error.message }));
    request.end(body);
  });
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
