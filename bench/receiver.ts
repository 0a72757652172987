import http from "node:http";
import type { AddressInfo } from "node:net";

/** A local destination that counts applied effects per Idempotency-Key. */
export interface CountingReceiver {
  url: string;
  applied: Map<string, number>;
  waitFor(keys: string[], timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

export async function startCountingReceiver(): Promise<CountingReceiver> {
  const applied = new Map<string, number>();
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const key = String(req.headers["idempotency-key"] ?? "");
      applied.set(key, (applied.get(key) ?? 0) + 1);
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    applied,
    async waitFor(keys, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (keys.some((k) => !applied.has(k))) {
        if (Date.now() > deadline) return;
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
