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
 * then does not share the bot's event loop, and the figure measures the bot, not the receiver.
 */
const RECEIVER = `
const http = require("node:http");
const { parentPort } = require("node:worker_threads");
const applied = new Map();
let awaited = null; // keys a waitFor still misses
const server = http.createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    const key = String(req.headers["idempotency-key"] ?? "");
    applied.set(key, (applied.get(key) ?? 0) + 1);
    res.writeHead(200, { "content-type": "application/json" }).end("{}");
    if (awaited?.delete(key) && awaited.size === 0) settle();
  });
});
const settle = () => { awaited = null; parentPort.postMessage({ complete: true }); };
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => parentPort.postMessage({ port: server.address().port }));
parentPort.on("message", (message) => {
  if (message === "snapshot") parentPort.postMessage({ applied: [...applied] });
  if (message.awaitKeys) {
    awaited = new Set(message.awaitKeys.filter((k) => !applied.has(k)));
    if (awaited.size === 0) settle();
  }
  if (message === "close") { server.closeAllConnections(); server.close(() => parentPort.postMessage({ closed: true })); }
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
