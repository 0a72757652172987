import { type ChildProcess, execFile, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { Redis } from "ioredis";
import { freePort } from "./bot-process";

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One redis-server child on a port of its own, in a directory of its own. */
interface Node {
  port: number;
  child: ChildProcess;
  args: string[];
}

function startNode(port: number, args: string[], dir: string): Node {
  const child = spawn("redis-server", [...args, "--port", String(port), "--bind", "127.0.0.1", "--dir", dir], {
    stdio: "ignore",
  });
  return { port, child, args };
}

async function answers(port: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const client = new Redis({ port, host: "127.0.0.1", lazyConnect: true, retryStrategy: () => null });
    client.on("error", () => {});
    try {
      await client.connect();
      await client.ping();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(100);
    } finally {
      client.disconnect();
    }
  }
}

async function kill(node: Node, signal: NodeJS.Signals = "SIGKILL"): Promise<void> {
  if (node.child.exitCode !== null || node.child.signalCode !== null) return;
  const exited = new Promise((resolve) => node.child.once("exit", resolve));
  node.child.kill(signal);
  await exited;
}

export const cli = async (port: number, ...args: string[]): Promise<string> =>
  (await run("redis-cli", ["-p", String(port), ...args])).stdout.trim();

const NO_DISK = ["--save", "", "--appendonly", "no"];

export interface SentinelGroup {
  /** REDIS_SENTINELS for the bot. */
  sentinels: string;
  name: string;
  /** The port the sentinels name as primary now. */
  primaryPort(): Promise<number>;
  /** SIGKILLs the primary and waits until the sentinels name a replica; resolves with the new primary's port. */
  failover(timeoutMs?: number): Promise<{ port: number; ms: number }>;
  /** FLUSHALL on the primary (replicas follow). */
  flushAll(): Promise<void>;
  stop(): Promise<void>;
}

/** A Sentinel group of one primary, two replicas and three sentinels (quorum 2), all private. */
export async function startSentinelGroup(name = "holdfast"): Promise<SentinelGroup> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "holdfast-sentinel-"));
  const nodes: Node[] = [];
  const primary = await freePort();
  nodes.push(startNode(primary, NO_DISK, dir));
  await answers(primary);
  for (let i = 0; i < 2; i++) {
    const port = await freePort();
    nodes.push(startNode(port, [...NO_DISK, "--replicaof", "127.0.0.1", String(primary)], dir));
    await answers(port);
  }
  const sentinelPorts: number[] = [];
  for (let i = 0; i < 3; i++) {
    const port = await freePort();
    const file = path.join(dir, `sentinel-${port}.conf`);
    fs.writeFileSync(
      file,
      [
        `port ${port}`,
        "bind 127.0.0.1",
        `sentinel monitor ${name} 127.0.0.1 ${primary} 2`,
        `sentinel down-after-milliseconds ${name} 1000`,
        `sentinel failover-timeout ${name} 4000`,
        "",
      ].join("\n"),
    );
    const child = spawn("redis-server", [file, "--sentinel"], { stdio: "ignore" });
    nodes.push({ port, child, args: [] });
    sentinelPorts.push(port);
    await answers(port);
  }
  const primaryPort = async () =>
    Number((await cli(sentinelPorts[0]!, "sentinel", "get-master-addr-by-name", name)).split("\n")[1]);
  // The replicas are in sync and the sentinels know them before the group is handed out.
  for (let i = 0; ; i++) {
    const replicas = await cli(sentinelPorts[0]!, "sentinel", "replicas", name);
    if ((replicas.match(/slave,?\n|^slave$/gm) ?? []).length >= 2 || i > 100) break;
    await sleep(100);
  }
  return {
    sentinels: sentinelPorts.map((p) => `127.0.0.1:${p}`).join(","),
    name,
    primaryPort,
    async failover(timeoutMs = 20_000) {
      const old = await primaryPort();
      const node = nodes.find((n) => n.port === old)!;
      const started = Date.now();
      await kill(node);
      for (;;) {
        const now = await primaryPort().catch(() => old);
        if (now !== old) return { port: now, ms: Date.now() - started };
        if (Date.now() - started > timeoutMs) throw new Error("the sentinels promoted no replica");
        await sleep(100);
      }
    },
    async flushAll() {
      await cli(await primaryPort(), "flushall");
    },
    async stop() {
      await Promise.all(nodes.map((n) => kill(n)));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface RedisCluster {
  /** REDIS_CLUSTER_NODES for the bot. */
  nodes: string;
  ports: number[];
  /** Stops one node (SIGKILL) and starts it again on its port with its node file: it rejoins the Cluster. */
  restartNode(port: number, downMs?: number): Promise<void>;
  flushAll(): Promise<void>;
  stop(): Promise<void>;
}

/** A three-master Redis Cluster with no replicas, all private; it keeps nothing but its node files. */
export async function startRedisCluster(): Promise<RedisCluster> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "holdfast-rcluster-"));
  const ports = [await freePort(), await freePort(), await freePort()];
  const clusterArgs = (port: number) => [
    ...NO_DISK,
    "--cluster-enabled",
    "yes",
    "--cluster-config-file",
    `nodes-${port}.conf`,
    "--cluster-node-timeout",
    "2000",
  ];
  const nodes = ports.map((port) => startNode(port, clusterArgs(port), dir));
  for (const port of ports) await answers(port);
  await run("redis-cli", [
    "--cluster",
    "create",
    ...ports.map((p) => `127.0.0.1:${p}`),
    "--cluster-replicas",
    "0",
    "--cluster-yes",
  ]);
  const healthy = async (timeoutMs = 20_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const infos = await Promise.all(ports.map((p) => cli(p, "cluster", "info").catch(() => "")));
      if (infos.every((info) => info.includes("cluster_state:ok"))) return;
      if (Date.now() > deadline) throw new Error("the Cluster is not ok");
      await sleep(100);
    }
  };
  await healthy();
  return {
    nodes: ports.map((p) => `127.0.0.1:${p}`).join(","),
    ports,
    async restartNode(port, downMs = 0) {
      const i = ports.indexOf(port);
      await kill(nodes[i]!);
      await sleep(downMs);
      nodes[i] = startNode(port, clusterArgs(port), dir);
      await answers(port);
      await healthy();
    },
    async flushAll() {
      for (const port of ports) await cli(port, "flushall");
    },
    async stop() {
      await Promise.all(nodes.map((n) => kill(n)));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
