import { Worker } from "node:worker_threads";

/** A local destination that counts applied effects per Idempotency-Key. */
export interface CountingReceiver {
  url: string;
  /** Resolves once every key was applied at least once, or the time is up. */
  waitFor(keys: string[], timeoutMs: number): Promise<void>;
  /** How many times each key was applied (a snapshot). */
  applied(): Promise<Map<string, number>>;
  close(): Promise<void>;
}

/**
 * The receiver runs on a thread of its own, as a real destination runs on another machine: its HTTP work
 * then does not share the bot's event loop. On a 2-core machine its CPU still comes out of the bot's, so it
 * is a minimal HTTP/1.1 server on node:net rather than node:http: it reads each request's head and
 * Content-Length body on kept-alive connections, counts the Idempotency-Key, and answers 200 `{}`. That is
 * all the bot's POSTs need, at about 13 µs of CPU per request against node:http's 17 (the receiver thread's
 * own time in a warm (b) round), so more of the figure measures the bot. Anything it does not parse (a
 * chunked body, a bad length) gets a 400 and a closed connection, which the bot records as a failed send.
 */
const RECEIVER = `
const net = require("node:net");
const { parentPort } = require("node:worker_threads");
const applied = new Map();
let awaited = null; // keys a waitFor still misses
const OK = Buffer.from("HTTP/1.1 200 OK\\r\\ncontent-type: application/json\\r\\ncontent-length: 2\\r\\nkeep-alive: timeout=60\\r\\n\\r\\n{}");
const BAD = Buffer.from("HTTP/1.1 400 Bad Request\\r\\ncontent-length: 0\\r\\nconnection: close\\r\\n\\r\\n");
const HEAD_END = Buffer.from("\\r\\n\\r\\n");
const apply = (key) => {
  applied.set(key, (applied.get(key) ?? 0) + 1);
  if (awaited?.delete(key) && awaited.size === 0) settle();
};
/** The request head's Content-Length and Idempotency-Key, or null when the body is not a plain sized one. */
const readHead = (head) => {
  let length = 0;
  let key = "";
  for (const line of head.split("\\r\\n")) {
    const colon = line.indexOf(":");
    if (colon < 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (name === "content-length") length = Number(line.slice(colon + 1));
    else if (name === "idempotency-key") key = line.slice(colon + 1).trim();
    else if (name === "transfer-encoding") return null;
  }
  return Number.isSafeInteger(length) && length >= 0 ? { length, key } : null;
};
const sockets = new Set();
const server = net.createServer((socket) => {
  sockets.add(socket);
  socket.setNoDelay(true);
  let unread = null; // the bytes of a request that has not fully arrived yet
  socket.on("data", (chunk) => {
    const bytes = unread ? Buffer.concat([unread, chunk]) : chunk;
    let offset = 0;
    let answered = 0;
    for (;;) {
      const headEnd = bytes.indexOf(HEAD_END, offset);
      if (headEnd < 0) break;
      const request = readHead(bytes.toString("latin1", offset, headEnd));
      if (!request) return socket.end(BAD);
      const end = headEnd + 4 + request.length;
      if (end > bytes.length) break;
      offset = end;
      apply(request.key);
      answered++;
    }
    unread = offset < bytes.length ? bytes.subarray(offset) : null;
    if (answered) socket.write(answered === 1 ? OK : Buffer.concat(Array(answered).fill(OK)));
  });
  socket.on("error", () => {});
  socket.on("close", () => sockets.delete(socket));
});
const settle = () => { awaited = null; parentPort.postMessage({ complete: true }); };
server.listen(0, "127.0.0.1", () => parentPort.postMessage({ port: server.address().port }));
parentPort.on("message", (message) => {
  if (message === "snapshot") parentPort.postMessage({ applied: [...applied] });
  if (message.awaitKeys) {
    awaited = new Set(message.awaitKeys.filter((k) => !applied.has(k)));
    if (awaited.size === 0) settle();
  }
  if (message === "close") {
    for (const socket of sockets) socket.destroy();
    server.close(() => parentPort.postMessage({ closed: true }));
  }
});
`;

export async function startCountingReceiver(): Promise<CountingReceiver> {
  const worker = new Worker(RECEIVER, { eval: true });
  const next = <T>(pick: (message: Record<string, unknown>) => T | undefined) =>
    new Promise<T>((resolve) => {
      const onMessage = (message: Record<string, unknown>) => {
        const value = pick(message);
        if (value === undefined) return;
        worker.off("message", onMessage);
        resolve(value);
      };
      worker.on("message", onMessage);
    });
  const port = await next((m) => m.port as number | undefined);
  const applied = async () => {
    const snapshot = next((m) => m.applied as Array<[string, number]> | undefined);
    worker.postMessage("snapshot");
    return new Map(await snapshot);
  };
  return {
    url: `http://127.0.0.1:${port}`,
    applied,
    // The receiver thread watches for the keys itself: polling snapshots of every applied key would put
    // the copying on the bot's thread, inside the measured time.
    async waitFor(keys, timeoutMs) {
      const complete = next((m) => m.complete as boolean | undefined);
      worker.postMessage({ awaitKeys: keys });
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([complete, new Promise<void>((r) => (timer = setTimeout(r, timeoutMs)))]);
      clearTimeout(timer);
    },
    async close() {
      const closed = next((m) => m.closed as boolean | undefined);
      worker.postMessage("close");
      await closed;
      await worker.terminate();
    },
  };
}
