import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";
import { isServing, spawnBot } from "../support/bot-process";
import { createTestDatabase, PROVIDERS } from "../support/databases";
import { startEffectReceiver } from "../support/effect-receiver";
import { KEYS } from "../support/harness";
import { startRestartableRedis } from "./restartable-redis";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "holdfast-redis-outage-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function until<T>(probe: () => Promise<T | null>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error("condition not met");
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.each(PROVIDERS)("a Redis outage while the bot runs on %s", (provider) => {
  it("is one warn line going and one coming back, nothing raw, and ticks resume within 2 s", async () => {
    const redis = await startRestartableRedis();
    const receiver = await startEffectReceiver();
    const database = provider === "sqlite" ? null : await createTestDatabase(provider);
    await database?.store.close();
    // The example directory, with the receiver's /tick declared for ops-agent and a test-speed interval.
    const directory = parseYaml(fs.readFileSync("holdfast.example.yaml", "utf8"));
    const agent = directory.tenants.acme.agents["ops-agent"];
    agent.destinations[`${receiver.url}/tick`] = "none";
    agent.limits = { minInterval: 200 };
    const config = path.join(dir, `holdfast-${provider}.yaml`);
    fs.writeFileSync(config, stringifyYaml(directory));
    const bot = await spawnBot({
      HOLDFAST_CONFIG: config,
      DATABASE_URL: database?.url ?? `file:${path.join(dir, "holdfast.db")}`,
      REDIS_URL: redis.url,
    });
    try {
      await bot.waitForLog(isServing);
      const register = await fetch(`${bot.url}/v1/agents/ops-agent/triggers`, {
        method: "POST",
        headers: { authorization: `Bearer ${KEYS.alice}`, "content-type": "application/json" },
        body: JSON.stringify({ key: "beat", every: 200, destination: `${receiver.url}/tick` }),
      });
      expect(register.status).toBe(201);
      await receiver.waitForCalls(2);

      const from = bot.logs.length;
      await redis.stop();
      await new Promise((r) => setTimeout(r, 4_000)); // an outage of a few seconds
      await redis.start(); // empty: nothing on disk
      const back = Date.now();
      const before = receiver.calls.length;
      await receiver.waitForCalls(before + 1, 10_000);
      const firstTickAfter = receiver.calls[before]!.at - back;
      await new Promise((r) => setTimeout(r, 1_000));

      const during = bot.logs.slice(from);
      const raw = during.filter((l) => "raw" in l);
      expect(raw).toEqual([]);
      // Warn and above: the outage going and coming back, and (Redis came back empty) the rebuild.
      const loud = during.filter((l) => Number(l.level) >= 40).map((l) => l.msg);
      expect(loud).toEqual([
        "redis is unreachable",
        "redis is back",
        "redis lost its data: schedules and jobs rebuilt from the database", // once, by the process that rebuilt
      ]);
      expect(firstTickAfter).toBeLessThan(2_000);
      console.log(`first tick ${firstTickAfter} ms after Redis came back; ${during.length} log lines in the outage`);

      // A dry run while Redis is down counts the due times the rebuild will record, not only the rows so far.
      const call = async (url: string, body: unknown) =>
        (
          await fetch(`${bot.url}${url}`, {
            method: "POST",
            headers: { authorization: `Bearer ${KEYS.alice}`, "content-type": "application/json" },
            body: JSON.stringify(body),
          })
        ).json() as Promise<Record<string, any>>;
      // A tick every 200 ms may be in flight at the pause: DRAINING until it is answered, then PAUSED.
      expect(["PAUSED", "DRAINING"]).toContain(
        (await call("/v1/agents/ops-agent/pause", { reason: "outage drill" })).state,
      );
      await until(async () => {
        const control = await fetch(`${bot.url}/v1/agents/ops-agent/control`, {
          headers: { authorization: `Bearer ${KEYS.alice}` },
        });
        return ((await control.json()) as { state: string }).state === "PAUSED" ? true : null;
      });
      await new Promise((r) => setTimeout(r, 600));
      await redis.stop();
      await new Promise((r) => setTimeout(r, 3_000));
      const dry = await call("/v1/agents/ops-agent/resume", { dryRun: true });
      expect(dry.held.notYetRecorded).toBeGreaterThanOrEqual(9); // 3 s of 200 ms slots, less the 1 s grace
      expect(dry.held.release).toEqual({ send: 1, coalesced: 1, skip: 0 });
      await redis.start();
      const recorded = await until(async () => {
        const again = await call("/v1/agents/ops-agent/resume", { dryRun: true });
        return again.held.notYetRecorded === 0 ? again.held.occurrences : null;
      });
      expect(recorded).toBeGreaterThanOrEqual(dry.held.occurrences); // the rebuild recorded what was counted
    } finally {
      bot.child.kill("SIGKILL");
      await bot.exited;
      await receiver.close();
      await redis.stop();
      await database?.drop();
    }
  }, 60_000);
});
