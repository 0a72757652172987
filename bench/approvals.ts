import pino from "pino";
import { createRunForAgent } from "../src/bot/app/approvals/create-run";
import { decideRun } from "../src/bot/app/approvals/decide-run";
import type { ApprovalRunView as RunView } from "../src/bot/app/approvals/run-view";
import type { HandlerContext } from "../src/bot/app/context";
import { HoldfastEvents } from "../src/bot/app/events";
import { loadDirectoryFile } from "../src/bot/main/config/directory-file";
import { runKey } from "../src/policy/ids";
import { hashKey } from "../src/policy/key-hash";
import { createDeliveryLoop } from "../src/queue/delivery/delivery-loop";
import { openStore } from "../src/store/connection/client";
import { migrateDatabase } from "../src/store/connection/migrate";
import { findAgent, findUserByKeyHash, syncDirectory } from "../src/store/directory/directory";
import { planDelivery } from "../src/store/outbox/plan";
import { startEffectReceiver } from "../test/support/effect-receiver";
import { freshPostgres } from "./postgres";

const RUNS = 100;
const CLICKS_PER_RUN = 10;
const DELIVERIES = 2000;
const CONCURRENCY = 50;
/** Runs being clicked at the same time; each gets its 10 clicks at once (100 decisions in flight). */
const RUNS_AT_ONCE = 10;
/**
 * Runs clicked first, the same way, and not counted (their figures are printed): the latency asked for is the
 * running process's, and the first thousand clicks of a fresh one pay for compiling the code and opening the
 * pool's connections and prepared statements (its first ten runs' p50 was 173-189 ms; after 20 runs the
 * measured p50 was still 26 ms, after 100 it was 12-18 ms, as in a run of 600).
 */
const WARM_RUNS = 100;

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
const fmt = (n: number) => n.toFixed(1);

/**
 * Approvals and outbox on PostgreSQL: decisions with 100 runs x 10 concurrent clicks after a warm-up of 100
 * (exactly one outbox row per run must result), decision latency, and outbox deliveries to a local receiver
 * (over 50 lanes) against a plain HTTP POST loop to the same receiver, 50 at once, measured in the same run
 * (the machine is noisy).
 */
export interface ApprovalFigures {
  decisionsPerSec: number;
  decisionP99Ms: number;
  /** Outbox deliveries per second over a plain POST loop's, to the same receiver. */
  /** null when the outbox part was left out (bench/quick.ts decisions). */
  outboxRatio: number | null;
}

/** `outbox: false` measures the decisions only (bench/quick.ts), leaving out the outbox deliveries. */
export async function benchApprovals({ outbox = true } = {}): Promise<ApprovalFigures> {
  const database = await freshPostgres();
  const receiver = await startEffectReceiver();
  const store = await openStore(database.url);
  try {
    await migrateDatabase(database.url);
    const destination = `${receiver.url}/effects`;
    const spec = loadDirectoryFile("holdfast.example.yaml");
    // The outbox part spreads its deliveries over CONCURRENCY destinations: one lane each, since a lane's items
    // go one after another (design: per-lane order), so the plain loop's CONCURRENCY POSTs at once meet as
    // many lanes. One lane against a one-at-a-time loop: npm run bench:quick -- outbox 3 1.
    const lane = (i: number) => `${destination}/${i % CONCURRENCY}`;
    spec.tenants[0]!.agents[0]!.settings.destinations = Object.fromEntries([
      [destination, "unique-external-id"],
      ...Array.from({ length: CONCURRENCY }, (_, i) => [lane(i), "unique-external-id"]),
    ]);
    await syncDirectory(store, spec);
    const log = pino({ level: "silent" });
    const ctx: HandlerContext = { store, log, now: () => new Date(), events: new HoldfastEvents() };
    const agent = (await findAgent(store.db, "acme", "ops-agent"))!;
    const rita = (await findUserByKeyHash(store.db, hashKey("demo-key-acme-rita-0004")))!;

    const createRuns = async (prefix: string, count: number): Promise<RunView[]> => {
      const created: RunView[] = [];
      for (let i = 0; i < count; i++) {
        const made = await createRunForAgent(ctx, {
          agent,
          id: `${prefix}-${i}`,
          operation: "pay",
          destination: lane(i),
          packet: { amount: i, evidence: ["x".repeat(200)] },
          reviewers: ["rita"],
          deadline: new Date(Date.now() + 3_600_000),
        });
        if (made.kind !== "created") throw new Error(`setup failed: ${made.kind}`);
        created.push(made.run);
      }
      return created;
    };
    const warmRuns = await createRuns("warm", WARM_RUNS);
    const runs = await createRuns("bench", RUNS);

    /** Clicks every run, RUNS_AT_ONCE runs at a time, each run's CLICKS_PER_RUN clicks at once. */
    const clickAll = async (list: RunView[]) => {
      const latencies: number[] = [];
      const results: string[] = [];
      let nextRun = 0;
      const clickRun = (run: RunView) =>
        Promise.all(
          Array.from({ length: CLICKS_PER_RUN }, async (_, click) => {
            const t = performance.now();
            const outcome = await decideRun(ctx, {
              runId: runKey("acme", run.id),
              eventId: `click-${click}`,
              action: "approve",
              version: run.version,
              digest: run.digest,
              actor: rita,
            });
            latencies.push(performance.now() - t);
            results.push(outcome.result);
          }),
        );
      const started = performance.now();
      await Promise.all(
        Array.from({ length: RUNS_AT_ONCE }, async () => {
          while (nextRun < list.length) await clickRun(list[nextRun++]!);
        }),
      );
      return { latencies: latencies.sort((a, b) => a - b), results, seconds: (performance.now() - started) / 1000 };
    };
    const warm = await clickAll(warmRuns);
    console.log(
      `approvals, warm-up (not counted): ${WARM_RUNS} runs, p50 ${fmt(percentile(warm.latencies, 0.5))} ms, p99 ${fmt(percentile(warm.latencies, 0.99))} ms`,
    );
    const { latencies, results, seconds } = await clickAll(runs);
    const approved = results.filter((r) => r === "approved").length;
    const outboxRows = await store.db.outboxItem.count();
    const expectedRows = WARM_RUNS + RUNS;
    console.log(
      `approvals (PostgreSQL): ${RUNS} runs x ${CLICKS_PER_RUN} concurrent clicks (${RUNS_AT_ONCE} runs at once) in ${fmt(seconds)} s`,
    );
    console.log(
      `  decisions answered/s: ${fmt(results.length / seconds)}, committed (winning) decisions/s: ${fmt(approved / seconds)}`,
    );
    console.log(
      `  approved: ${approved}, outbox rows: ${outboxRows} (expected ${expectedRows})${outboxRows === expectedRows ? "" : "  <-- WRONG"}`,
    );
    console.log(
      `  decision latency p50 ${fmt(percentile(latencies, 0.5))} ms, p99 ${fmt(percentile(latencies, 0.99))} ms`,
    );

    if (!outbox)
      return {
        decisionsPerSec: results.length / seconds,
        decisionP99Ms: percentile(latencies, 0.99),
        outboxRatio: null,
      };

    for (let i = 0; i < DELIVERIES - expectedRows; i++) {
      await planDelivery(
        store,
        {
          id: `extra-${i}`,
          kind: "action",
          tenantId: "acme",
          agentId: agent.id,
          destination: lane(i),
          contract: "unique-external-id",
          payload: { amount: i, evidence: ["x".repeat(200)] },
        },
        new Date(),
      );
    }
    const loop = createDeliveryLoop({ store, log, batchSize: CONCURRENCY, pollMs: 60_000 });
    const deliveryStart = performance.now();
    while ((await loop.runOnce()) > 0);
    const deliverySeconds = (performance.now() - deliveryStart) / 1000;
    await loop.stop();

    const body = JSON.stringify({ amount: 1, evidence: ["x".repeat(200)] });
    let next = 0;
    const plainStart = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < DELIVERIES) {
          const i = next++;
          const response = await fetch(destination, {
            method: "POST",
            headers: { "content-type": "application/json", "idempotency-key": `plain-${i}` },
            body,
          });
          await response.arrayBuffer();
        }
      }),
    );
    const plainSeconds = (performance.now() - plainStart) / 1000;
    const acknowledged = await store.db.outboxItem.count({ where: { state: "ACKNOWLEDGED" } });
    const outboxRate = acknowledged / deliverySeconds;
    const plainRate = DELIVERIES / plainSeconds;
    console.log(`outbox deliveries (PostgreSQL, concurrency ${CONCURRENCY}): ${acknowledged} acknowledged`);
    console.log(
      `  outbox: ${fmt(outboxRate)}/s, plain HTTP POST loop: ${fmt(plainRate)}/s, ratio ${(outboxRate / plainRate).toFixed(2)}`,
    );
    return {
      decisionsPerSec: results.length / seconds,
      decisionP99Ms: percentile(latencies, 0.99),
      outboxRatio: outboxRate / plainRate,
    };
  } finally {
    await store.close();
    await receiver.close();
    await database.drop();
  }
}
