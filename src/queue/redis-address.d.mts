import type { ConnectionOptions } from "bullmq";
import type { Cluster, ClusterNode, Redis, RedisOptions } from "ioredis";

export interface HostPort {
  host: string;
  port: number;
}
export type RedisTarget =
  | { topology: "single"; url: string }
  | { topology: "sentinel"; sentinels: HostPort[]; name: string; password?: string }
  | { topology: "cluster"; nodes: HostPort[] };
export type RedisTopology = RedisTarget["topology"];
/** A client of any topology: both have the commands the bot sends. */
export type RedisClient = Redis | Cluster;

export const RECONNECT_MS: number;
export function reconnectStrategy(times: number): number;
export function parseHostList(text: string | undefined): { hosts: HostPort[]; error?: undefined } | { error: string };
export function sentinelAddress(group: { sentinels: HostPort[]; name: string; password?: string }): string;
export function clusterAddress(nodes: ClusterNode[] | HostPort[]): string;
export function parseRedisAddress(address: string): RedisTarget;
export function describeRedisAddress(address: string): string;
export function redisClient(address: string, options?: RedisOptions): RedisClient;
export function bullConnection(
  address: string,
  options?: RedisOptions,
): { connection: ConnectionOptions; owned: Cluster | null };
