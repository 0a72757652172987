import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { openStore } from "../../src/store/connection/client";
import { type BotProcess, isServing, spawnBot } from "../support/bot-process";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { type EffectReceiver, startEffectReceiver } from "../support/effect-receiver";
import { startPrivateRedis } from "../support/redis-server";

/**
 * Several bot processes on one PostgreSQL database and one private Redis, through the faults of a real
 * deployment: a tenant-wide pause, a process SIGKILLed, Redis emptied and restarted, a replacement process,
 * the resume, and the releasing process SIGKILLed mid-release. Everything is checked at a receiver that
 * counts every call (it deduplicates nothing).
 */
const AGENTS = 50;
const EVERY_MS = 1_000;
const RELEASE_BUDGET_MS = 30_000;
const ADA = "cluster-admin-key-0001";
const RITA = "cluster-reviewer-key-0002";
const agentKey = (i: number) => `cluster-agent-key-${String(i).padStart(4, "0")}`;
const name = (i: number) => `agent-${String(i).padStart(2, "0")}`;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "holdfast-cluster-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function writeConfig(receiver: EffectReceiver): string {
  const agents: Record<string, unknown> = {};
  for (let i = 0; i < AGENTS; i++) {
    agents[name(i)] = {
      principal: "ada",
      reviewers: ["rita"],
      webhook: `${receiver.url}/agent/${i}`,
      agentKey: agentKey(i),
      destinations: { [`${receiver.url}/t/${i}`]: "none", [`${receiver.url}/act/${i}`]: "key-retained 24h" },
    };
  }
  const config = {
    tenants: {
      acme: { admins: ["ada"], users: { ada: { apiKey: ADA }, rita: { apiKey: RITA } }, agents },
    },
  };
  const file = path.join(dir, "holdfast.yaml");
  fs.writeFileSync(file, stringify(config));
  return file;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("three bot processes on one PostgreSQL database", () => {
  it("hold everything while paused and release each held item exactly once through kills and a Redis loss", async () => {
    const receiver = await startEffectReceiver();
    const redis = await startPrivateRedis();
    let database: TestDatabase | null = await createTestDatabase("postgresql");
    await database.store.close();
    const env = {
      DATABASE_URL: database.url,
      REDIS_URL: redis.url,
      HOLDFAST_CONFIG: writeConfig(receiver),
      HOLDFAST_QUEUE_PREFIX: `{hf-cluster-${crypto.randomUUID().slice(0, 8)}}`,
      HOLDFAST_RELEASE_BATCH: "5",
    };
    // Every process that runs at the resume is armed to hang after its first release step; the test then
    // SIGKILLs it mid-release. The replacement started after that kill is not armed.
    const armed = { ...env, HOLDFAST_CRASH_AT: "release-batch" };
    const bots: BotProcess[] = [];
    const start = async (processEnv: Record<string, string>) => {
      const bot = await spawnBot(processEnv);
      bots.push(bot);
      await bot.waitForLog(isServing, 60_000);
      return bot;
    };
    const kill = async (bot: BotProcess) => {
      bot.child.kill("SIGKILL");
      await bot.exited;
    };
    const api = async (bot: BotProcess, key: string, method: string, url: string, body?: unknown) => {
      const response = await fetch(`${bot.url}${url}`, {
        method,
        headers: {
          authorization: `Bearer ${key}`,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const json = (await response.json()) as Record<string, any>;
      if (response.status >= 300) throw new Error(`${method} ${url}: ${response.status} ${JSON.stringify(json)}`);
      return json;
    };
    try {
      const [p1, p2, p3] = await Promise.all([start(armed), start(armed), start(armed)]);
      for (let i = 0; i < AGENTS; i++) {
        await api(p1!, ADA, "POST", `/v1/agents/${name(i)}/triggers`, {
          key: "tick",
          every: EVERY_MS,
          misfire: i % 2 ? "all" : "coalesce",
          destination: `${receiver.url}/t/${i}`,
        });
      }
      const runs: Array<{ id: string; version: number; digest: string }> = [];
      for (let i = 0; i < 10; i++) {
        const run = await api(p2!, agentKey(i), "POST", "/v1/runs", {
          agent: name(i),
          operation: "pay",
          destination: `${receiver.url}/act/${i}`,
          packet: { amount: i },
          reviewers: ["rita"],
          deadline: new Date(Date.now() + 600_000).toISOString(),
        });
        runs.push({ id: run.id, version: run.version, digest: run.digest });
      }
      await sleep(1_500); // running: deliveries flow

      // The tenant-wide pause; from the moment it reads PAUSED nothing may go out.
      let paused = await api(p1!, ADA, "POST", "/v1/tenant/pause", { reason: "cluster test" });
      while (paused.state !== "PAUSED") {
        await sleep(100);
        paused = await api(p1!, ADA, "POST", "/v1/tenant/pause", { reason: "cluster test" });
      }
      const pausedAt = Date.now();
      for (const run of runs) {
        const decision = { eventId: `approve-${run.id}`, action: "approve", version: run.version, digest: run.digest };
        await api(p3!, RITA, "POST", `/v1/runs/${run.id}/decisions`, decision);
      }
      for (let i = 10; i < 15; i++) {
        for (let n = 0; n < 3; n++) {
          await api(p2!, agentKey(i), "POST", `/v1/agents/${name(i)}/events`, {
            eventId: `e-${i}-${n}`,
            type: "reply",
            payload: { n },
          });
        }
      }
      await kill(p1!);
      await redis.flushAll();
      await redis.restart();
      const p4 = await start(armed);
      await sleep(3_000); // held due times accumulate

      const resumedAt = Date.now();
      await api(p2!, ADA, "POST", "/v1/tenant/resume", {});
      let kills = 0;
      let replaced = false; // one clean replacement, started at the first kill
      const check = await openStore(env.DATABASE_URL);
      try {
        const { id: releaseId } = await check.db.release.findFirstOrThrow({
          where: { requestedBy: "acme:ada" },
          orderBy: { createdAt: "desc" },
        });
        for (;;) {
          for (const bot of [p2!, p3!, p4].filter((b) => b.child.exitCode === null && b.child.signalCode === null)) {
            if (bot.logs.some((l) => l.msg === "test crash point reached")) {
              await kill(bot);
              kills++;
              if (!replaced) {
                replaced = true;
                await start(env);
              }
            }
          }
          const release = await check.db.release.findUniqueOrThrow({ where: { id: releaseId } });
          if (release.state === "DONE") break;
          if (Date.now() - resumedAt > RELEASE_BUDGET_MS) throw new Error("the release did not finish in budget");
          await sleep(100);
        }
        const releaseMs = Date.now() - resumedAt;
        expect(kills).toBeGreaterThanOrEqual(1);

        const released = await check.db.occurrence.findMany({
          where: { state: "RELEASED" },
          orderBy: { dueAt: "asc" },
        });
        const expectedKeys = new Set([
          ...released.map((o) => o.outboxId!),
          ...runs.map((r) => `acme:${r.id}:${r.version}:pay`),
          ...Array.from({ length: 15 }, (_, i) => i)
            .filter((i) => i >= 10)
            .flatMap((i) => [0, 1, 2].map((n) => `acme:${name(i)}:event:e-${i}-${n}`)),
        ]);
        const deadline = Date.now() + 20_000;
        const got = () => new Set(receiver.calls.map((c) => c.key));
        while ([...expectedKeys].some((k) => !got().has(k)) && Date.now() < deadline) await sleep(100);
        await sleep(500); // let a duplicate arrive before counting
        const missing = [...expectedKeys].filter((k) => !got().has(k));
        expect(missing).toEqual([]);

        // Nothing went out while paused (the pause read PAUSED only once nothing was in flight).
        const during = receiver.calls.filter((c) => c.at >= pausedAt && c.at < resumedAt);
        expect(during.map((c) => c.key)).toEqual([]);
        // No key was received twice.
        const seen = new Map<string, number>();
        for (const c of receiver.calls) seen.set(c.key, (seen.get(c.key) ?? 0) + 1);
        expect([...seen].filter(([, n]) => n > 1)).toEqual([]);

        const occurrences = await check.db.occurrence.findMany({ orderBy: { dueAt: "asc" } });
        const triggers = await check.db.trigger.findMany();
        const calls = new Map(receiver.calls.map((c) => [c.key, c]));
        for (const trigger of triggers) {
          const rows = occurrences.filter((o) => o.triggerId === trigger.id);
          const where = `${trigger.id} (${trigger.misfire})`;
          // No gap: every slot from the first recorded to the last has exactly one row.
          for (let k = 1; k < rows.length; k++) {
            expect(rows[k]!.dueAt.getTime() - rows[k - 1]!.dueAt.getTime(), where).toBe(EVERY_MS);
          }
          // The pause held several due times of every trigger, and the resume's release took them all.
          const heldHere = rows.filter((o) => o.releaseId === releaseId);
          expect(heldHere.length, `${where}: held ${heldHere.length} in release ${releaseId}`).toBeGreaterThanOrEqual(
            3,
          );
          const dueWhilePaused = rows.filter((o) => o.dueAt.getTime() > pausedAt && o.dueAt.getTime() < resumedAt);
          // Every due time of the pause went out after the resume (its own tick may have come late and
          // found the gate open; most were held and taken by the resume's release).
          const sentAt = (o: (typeof rows)[number]) => calls.get(o.state === "PLANNED" ? o.id : o.outboxId!)?.at ?? 0;
          expect(
            dueWhilePaused.filter((o) => sentAt(o) < resumedAt).map((o) => o.id),
            where,
          ).toEqual([]);
          // Released rows, by each release that took some (the resume's, and recoveries of late ticks).
          const releases = new Set(rows.filter((o) => o.state === "RELEASED").map((o) => o.releaseId!));
          for (const release of releases) {
            const taken = rows.filter((o) => o.releaseId === release);
            if (trigger.misfire === "all") {
              // Every held due time exactly once, under its own key, in due order.
              const sent = taken.map((o) => calls.get(o.id));
              expect(sent.every(Boolean), where).toBe(true);
              const order = [...sent].sort((x, y) => x!.at - y!.at).map((c) => (c!.body as { dueAt: string }).dueAt);
              expect(order, where).toEqual(taken.map((o) => o.dueAt.toISOString()));
            } else {
              // Coalesced: each delivery carries exactly the rows marked into it.
              const keys = new Set(taken.map((o) => o.outboxId!));
              const dueTimes = [...keys].flatMap((k) => {
                const body = calls.get(k)?.body as { missed: number; dueTimes: string[] } | undefined;
                expect(body?.missed, `${where} ${k}`).toBe(body?.dueTimes.length);
                expect(body?.dueTimes.sort(), `${where} ${k}`).toEqual(
                  taken
                    .filter((o) => o.outboxId === k)
                    .map((o) => o.dueAt.toISOString())
                    .sort(),
                );
                return body?.dueTimes ?? [];
              });
              expect(dueTimes.length, where).toBe(taken.length);
            }
          }
          // Rows delivered on their own (the agent running) each went out once under their key.
          for (const o of rows.filter((r) => r.state === "PLANNED")) {
            if (o.dueAt.getTime() < resumedAt + 5_000) expect(calls.has(o.id), `${where} ${o.id}`).toBe(true);
          }
        }
        // Events of one agent arrive in the order they were received.
        for (let i = 10; i < 15; i++) {
          const order = receiver.calls.filter((c) => c.key.startsWith(`acme:${name(i)}:event:`)).map((c) => c.key);
          expect(order).toEqual([0, 1, 2].map((n) => `acme:${name(i)}:event:e-${i}-${n}`));
        }
        console.log(
          `cluster: ${released.length} held occurrences released in ${releaseMs} ms (budget ${RELEASE_BUDGET_MS}), ${kills} releasing process(es) SIGKILLed, ${receiver.calls.length} calls received`,
        );
      } finally {
        await check.close();
      }
    } finally {
      for (const bot of bots) bot.child.kill("SIGKILL");
      await Promise.all(bots.map((b) => b.exited));
      await receiver.close();
      await redis.stop();
      await database?.drop();
      database = null;
    }
  }, 170_000);
});
