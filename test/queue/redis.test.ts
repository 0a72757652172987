import pino from "pino";
import { describe, expect, it } from "vitest";
import { connectRedis } from "../../src/queue/redis";
import { freePort } from "../support/bot-process";

describe("connectRedis", () => {
  it("starts a local redis-server when REDIS_URL is unset and nothing answers, and stops it on close", async () => {
    const port = await freePort();
    const redis = await connectRedis(undefined, pino({ level: "silent" }), port);
    expect(redis.url).toBe(`redis://127.0.0.1:${port}`);
    expect(await redis.ping()).toBe(true);
    expect(await redis.client.config("GET", "save")).toEqual(["save", ""]);
    await redis.close();
    // The child is gone: a fresh connection attempt to that port is refused.
    await new Promise((r) => setTimeout(r, 300));
    await expect(connectRedis(`redis://127.0.0.1:${port}`, pino({ level: "silent" }))).rejects.toThrow(
      /cannot connect to Redis/,
    );
  });
});
