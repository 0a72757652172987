import { type ChildProcess, spawn } from "node:child_process";
import net from "node:net";
import { freePort } from "../support/bot-process";

/** A private redis-server that a test stops and starts again on the same port (empty each time). */
export interface RestartableRedis {
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
}

const answers = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });

export async function startRestartableRedis(): Promise<RestartableRedis> {
  const port = await freePort();
  let child: ChildProcess | null = null;
  const redis: RestartableRedis = {
    url: `redis://127.0.0.1:${port}`,
    async start() {
      child = spawn(
        "redis-server",
        ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        {
          stdio: "ignore",
        },
      );
      for (let i = 0; !(await answers(port)); i++) {
        if (i > 100) throw new Error("redis-server did not start");
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async stop() {
      const running = child;
      if (!running || running.exitCode !== null) return;
      const exited = new Promise((resolve) => running.once("exit", resolve));
      running.kill("SIGKILL");
      await exited;
      child = null;
    },
  };
  await redis.start();
  return redis;
}
