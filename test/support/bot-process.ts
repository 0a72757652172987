import { type ChildProcess, spawn } from "node:child_process";
import crypto from "node:crypto";
import net from "node:net";

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Whether nothing listens on this port of 127.0.0.1 now. */
const portIsFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });

/** This port if nothing listens there now (a README's own example, say PORT=3999), else a free one. */
export async function portOrFree(port: number): Promise<number> {
  return (await portIsFree(port)) ? port : freePort();
}

/** One request to a running bot with a key: its status and its JSON answer. */
export async function callBot(bot: { url: string }, key: string, method: string, url: string, body?: unknown) {
  const response = await fetch(`${bot.url}${url}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: response.status, json: (await response.json()) as any };
}

export interface BotProcess {
  child: ChildProcess;
  port: number;
  url: string;
  /** Every log line so far (JSON objects from pino, or raw text). */
  logs: Array<Record<string, unknown>>;
  waitForLog(
    predicate: (line: Record<string, unknown>) => boolean,
    timeoutMs?: number,
  ): Promise<Record<string, unknown>>;
  exited: Promise<number | null>;
}

export interface SpawnOptions {
  /** The command line; default: node running the built dist/main.mjs, as `npm start` does. */
  command?: [string, ...string[]];
  /** Its own process group (its pid is the group id), to find every process it leaves behind. */
  detached?: boolean;
}

/**
 * A test bot's queue prefix when the test names none: one of its own per database (the same for a restart on
 * the same database, which must keep its prefix), never the default `{holdfast}` of a quick-start bot that may
 * share the machine's Redis.
 */
export const testPrefixFor = (databaseUrl: string | undefined): string =>
  `hf-bot-${crypto
    .createHash("sha256")
    .update(databaseUrl ?? process.cwd())
    .digest("hex")
    .slice(0, 12)}`;

/**
 * `npm start`'s process: the bundle in dist/, which the suites' global setup builds when a source changed
 * (test/support/build-dist.ts). The bench's production process is this one too.
 */
export const BUILT_BOT: [string, ...string[]] = [process.execPath, "--max-semi-space-size=16", "dist/main.mjs"];

/** Runs the real bot as a child process (on a queue prefix of its own unless `env` names one). */
export async function spawnBot(env: Record<string, string>, options: SpawnOptions = {}): Promise<BotProcess> {
  const port = await freePort();
  const prefix = env.HOLDFAST_QUEUE_PREFIX ?? testPrefixFor(env.DATABASE_URL);
  const [command, ...args] = options.command ?? BUILT_BOT;
  const child = spawn(command, args, {
    env: {
      ...process.env,
      LOG_LEVEL: "info",
      ...env,
      HOLDFAST_QUEUE_PREFIX: prefix,
      PORT: String(port),
      HOST: "127.0.0.1",
    },
    stdio: ["ignore", "pipe", "pipe"],
    detached: options.detached,
  });
  const logs: Array<Record<string, unknown>> = [];
  const waiters: Array<() => void> = [];
  let buffer = "";
  const onData = (chunk: Buffer) => {
    buffer += chunk.toString();
    const lines = buffer.split("\n");
    buffer = lines.pop() ?? "";
    for (const line of lines.filter(Boolean)) {
      try {
        logs.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        logs.push({ raw: line });
      }
    }
    for (const wake of waiters.splice(0)) wake();
  };
  child.stdout!.on("data", onData);
  child.stderr!.on("data", onData);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const bot: BotProcess = {
    child,
    port,
    url: `http://127.0.0.1:${port}`,
    logs,
    exited,
    async waitForLog(predicate, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = logs.find(predicate);
        if (found) return found;
        if (Date.now() > deadline || child.exitCode !== null) {
          throw new Error(`log line not seen; logs:\n${logs.map((l) => JSON.stringify(l)).join("\n")}`);
        }
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 200);
        });
      }
    },
  };
  return bot;
}

/** The start log's last line, "holdfast is serving at <url>". */
export const isServing = (line: Record<string, unknown>): boolean =>
  typeof line.msg === "string" && line.msg.startsWith("holdfast is serving");
