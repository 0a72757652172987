import { type ChildProcess, spawn } from "node:child_process";
import { Redis } from "ioredis";
import { freePort } from "./bot-process";

export interface PrivateRedis {
  url: string;
  flushAll(): Promise<void>;
  /** Stops the server and starts a new, empty one on the same port (a Redis restart that kept nothing). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** A redis-server of the test's own, so a FLUSHALL cannot disturb the other test files on the shared one. */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess;
  let client: Redis;
  const start = async () => {
    child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], {
      stdio: "ignore",
    });
    for (let i = 0; ; i++) {
      client = new Redis(url, { lazyConnect: true, retryStrategy: () => null });
      client.on("error", () => {});
      try {
        await client.connect();
        return;
      } catch (error) {
        client.disconnect();
        if (i > 50) throw error;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  };
  const stop = async () => {
    client.disconnect();
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await exited;
  };
  await start();
  return {
    url,
    flushAll: async () => {
      await client.flushall();
    },
    async restart() {
      await stop();
      await start();
    },
    stop,
  };
}
