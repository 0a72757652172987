import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseEnv } from "../../src/bot/main/config/env";
import { describeRedisAddress, parseRedisAddress } from "../../src/queue/redis-address.mjs";

describe("the Redis topology from the environment", () => {
  it("keeps REDIS_URL for one server and leaves the address unset without it", () => {
    expect(parseEnv({}).redisAddress).toBeUndefined();
    const one = parseEnv({ REDIS_URL: "redis://:s3cret@10.0.0.5:6380" }).redisAddress!;
    expect(parseRedisAddress(one)).toEqual({ topology: "single", url: "redis://:s3cret@10.0.0.5:6380" });
    expect(describeRedisAddress(one)).toBe("redis://:***@10.0.0.5:6380");
  });

  it("reads a Sentinel group with its name and password (inline or from a file), never describing the password", () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "hf-sentinel-")), "pw");
    fs.writeFileSync(file, "p@ss/w:rd\n");
    for (const secret of [{ REDIS_SENTINEL_PASSWORD: "p@ss/w:rd" }, { REDIS_SENTINEL_PASSWORD_FILE: file }]) {
      const address = parseEnv({
        REDIS_SENTINELS: "10.0.0.1:26379, sentinel-b:26380",
        REDIS_SENTINEL_NAME: "main",
        ...secret,
      }).redisAddress!;
      expect(parseRedisAddress(address)).toEqual({
        topology: "sentinel",
        sentinels: [
          { host: "10.0.0.1", port: 26379 },
          { host: "sentinel-b", port: 26380 },
        ],
        name: "main",
        password: "p@ss/w:rd",
      });
      expect(describeRedisAddress(address)).toBe('Sentinel group "main" via 10.0.0.1:26379,sentinel-b:26380');
    }
  });

  it("reads a Cluster's nodes under a prefix with a hash tag", () => {
    const address = parseEnv({ REDIS_CLUSTER_NODES: "10.0.0.1:7000,10.0.0.2:7001" }).redisAddress!;
    expect(parseRedisAddress(address)).toEqual({
      topology: "cluster",
      nodes: [
        { host: "10.0.0.1", port: 7000 },
        { host: "10.0.0.2", port: 7001 },
      ],
    });
    expect(describeRedisAddress(address)).toBe("Cluster via 10.0.0.1:7000,10.0.0.2:7001");
  });

  it("refuses what cannot be one topology, naming the variable", () => {
    const refused = (env: NodeJS.ProcessEnv) => () => parseEnv(env);
    expect(refused({ REDIS_URL: "redis://x:1", REDIS_CLUSTER_NODES: "x:1" })).toThrow(
      "REDIS_URL and REDIS_CLUSTER_NODES: set one Redis topology",
    );
    expect(refused({ REDIS_SENTINELS: "x:1" })).toThrow("REDIS_SENTINEL_NAME");
    expect(refused({ REDIS_SENTINELS: "x", REDIS_SENTINEL_NAME: "m" })).toThrow(
      'REDIS_SENTINELS: "x" is not host:port',
    );
    expect(refused({ REDIS_CLUSTER_NODES: "x:99999" })).toThrow("REDIS_CLUSTER_NODES");
    expect(refused({ REDIS_CLUSTER_NODES: "x:7000", HOLDFAST_QUEUE_PREFIX: "plain" })).toThrow(
      'HOLDFAST_QUEUE_PREFIX: "plain" has no hash tag',
    );
    expect(
      refused({ REDIS_SENTINELS: "x:1", REDIS_SENTINEL_NAME: "m", REDIS_SENTINEL_PASSWORD_FILE: "/nonexistent/pw" }),
    ).toThrow("REDIS_SENTINEL_PASSWORD_FILE");
  });
});
