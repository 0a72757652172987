import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openStore } from "../src/store/connection/client";
import { blockActionsBody, postSigned, slackArgs, startSlackFake } from "../test/fakes/slack-fake";
import { type BotProcess, isServing, spawnBot } from "../test/support/bot-process";
import { api as apiOnce, sleep } from "../test/support/deployment";
import { startPrivateRedis } from "../test/support/redis-server";
import { agentKey, agentName, LOAD_ADMIN_KEY, LOAD_TEAM, releasedDelivered, writeLoadDirectory } from "./load-tenant";
import { freshPostgres } from "./postgres";
import { buildProduction, mb, PRODUCTION, rssMiB } from "./process";
import { startCountingReceiver } from "./receiver";

/**
 * `npm run bench:load` (issue 23): bot processes on one PostgreSQL and one Redis; a tenant of LOAD_AGENTS agents
 * with one `all` trigger each, paused until LOAD_DUE due times are held, then resumed; while that release runs,
 * LOAD_CLICKS signed Slack approval clicks arrive, spread over the processes. Prints the release's time and
 * rate, the click-to-ack p99, each process's peak RSS and the database's size, and checks that every held due
 * time and every approved action reached the receiver exactly once. Nothing here asserts a timing.
 * LOAD_HEAP_SNAPSHOTS=<dir> has each process write a heap snapshot there after the release.
 */
const num = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const AGENTS = num("LOAD_AGENTS", 10_000);
const DUE = num("LOAD_DUE", 100_000);
const CLICKS = num("LOAD_CLICKS", 1_000);
const PROCESSES = num("LOAD_PROCESSES", 3);
/** Each trigger's interval: AGENTS / EVERY due times a second come due while paused. */
const EVERY_MS = num("LOAD_EVERY_MS", 10_000);
const CLICKS_AT_ONCE = 20;
/** How long after the last released due time was delivered the steady-state RSS is read. */
const SETTLE_MS = num("LOAD_SETTLE_MS", 30_000);
/** Set to a directory: each process writes a V8 heap snapshot there once the release is done (where its memory went). */
const SNAPSHOTS = process.env.LOAD_HEAP_SNAPSHOTS;
/** Set to a directory: each thread of each process samples its heap there every 5 s (bench/memory-probe.mjs). */
const MEMORY_DIR = process.env.LOAD_MEMORY_DIR;
/**
 * LOAD_NODE_FLAGS="<flags of process 0>;<flags of process 1>;...": node's flags per process in place of `npm start`'s
 * (empty: npm start's), so two memory settings can be compared side by side under the same load.
 */
const NODE_FLAGS = (process.env.LOAD_NODE_FLAGS ?? "").split(";");
const commandOf = (p: number): [string, ...string[]] => {
  const flags = NODE_FLAGS[p % NODE_FLAGS.length]?.trim();
  return flags ? [process.execPath, ...flags.split(/\s+/), "dist/main.mjs"] : PRODUCTION;
};
const SECRET = "load-slack-signing-secret";
const TEAM = LOAD_TEAM;
const ADA = LOAD_ADMIN_KEY;
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

/**
 * A call of the API that tries again after a 503 (the database too busy to take it: it changed nothing, and its
 * Retry-After asks for 2 s), as a client should; the retries are counted and printed.
 */
let retried503 = 0;
async function api(...args: Parameters<typeof apiOnce>): ReturnType<typeof apiOnce> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await apiOnce(...args);
    } catch (error) {
      if (attempt >= 10 || !/: 503 /.test((error as Error).message)) throw error;
      retried503++;
      await sleep(2_000);
    }
  }
}

/** Runs `task` over `items`, `width` at a time. */
async function inParallel<T>(items: T[], width: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await task(items[next++]!);
    }),
  );
}

/** Signals each process to write a heap snapshot, and waits until every file has stopped growing. */
async function heapSnapshots(bots: BotProcess[], dir: string): Promise<void> {
  fs.mkdirSync(dir, { recursive: true });
  const before = new Set(fs.readdirSync(dir));
  for (const bot of bots) bot.child.kill("SIGUSR2");
  const sizes = () =>
    fs
      .readdirSync(dir)
      .filter((f) => !before.has(f))
      .map((f) => fs.statSync(path.join(dir, f)).size);
  let last = "";
  for (;;) {
    await sleep(2_000);
    const now = sizes();
    if (now.length === bots.length && now.every((n) => n > 0) && now.join() === last) break;
    last = now.join();
  }
  console.log(`  heap snapshots written to ${dir}`);
}

/** One process's samples (bench/memory-probe.mjs): each thread's largest heap, the main thread's old space and resident kinds. */
function memorySummary(dir: string, pid: number): string {
  const samples = fs
    .readFileSync(path.join(dir, `${pid}.jsonl`), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown> & { thread: string | number; heapTotal: number });
  const most = (of: typeof samples, value: (s: (typeof samples)[number]) => number) => Math.max(0, ...of.map(value));
  const threads = [...new Set(samples.map((s) => s.thread))].map(
    (thread) =>
      `${thread} ${most(
        samples.filter((s) => s.thread === thread),
        (s) => s.heapTotal,
      )}`,
  );
  const main = samples.filter((s) => s.thread === "main");
  const resident = (kind: string) => most(main, (s) => (s.resident as Record<string, number>)[kind] ?? 0);
  return `  process ${pid}, largest (MiB): V8 heap per thread ${threads.join(", ")}; main thread's old space ${most(main, (s) => s.oldSpace as number)}, used heap ${most(main, (s) => s.heapUsed as number)}; resident anonymous ${resident("anon")}, malloc heap ${resident("heap")} and other arenas ${resident("arenas")}, files ${resident("file")}`;
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "holdfast-load-"));
const database = await freshPostgres();
const redis = await startPrivateRedis();
const receiver = await startCountingReceiver();
const slack = await startSlackFake({ teamId: TEAM });
const store = await openStore(database.url);
const bots: BotProcess[] = [];
try {
  const tickUrl = `${receiver.url}/t`;
  const actUrl = `${receiver.url}/act`;
  // The processes are the production ones (`npm start`'s built dist/), so their memory is what production holds.
  const env = {
    ...buildProduction(),
    DATABASE_URL: database.url,
    REDIS_URL: redis.url,
    HOLDFAST_CONFIG: writeLoadDirectory(dir, AGENTS, tickUrl, actUrl),
    HOLDFAST_QUEUE_PREFIX: "{hf-load}",
    SLACK_BOT_TOKEN: "xoxb-load",
    SLACK_SIGNING_SECRET: SECRET,
    SLACK_API_URL: slack.apiUrl,
    LOG_LEVEL: "info",
    NODE_OPTIONS: [
      process.env.NODE_OPTIONS ?? "",
      SNAPSHOTS ? `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${SNAPSHOTS}` : "",
      MEMORY_DIR ? `--import=${path.resolve("bench/memory-probe.mjs")}` : "",
    ]
      .join(" ")
      .trim(),
    ...(MEMORY_DIR ? { LOAD_MEMORY_DIR: MEMORY_DIR } : {}),
  };
  if (MEMORY_DIR) fs.mkdirSync(MEMORY_DIR, { recursive: true });
  // One process applies the migrations and the directory first; the others find them done.
  bots.push(await spawnBot(env, { command: commandOf(0) }));
  await bots[0]!.waitForLog(isServing, 300_000);
  for (let p = 1; p < PROCESSES; p++) bots.push(await spawnBot(env, { command: commandOf(p) }));
  await Promise.all(bots.slice(1).map((b) => b.waitForLog(isServing, 300_000)));
  console.log(`load: ${PROCESSES} processes, ${AGENTS} agents, ${DUE} due times, ${CLICKS} clicks`);

  await api(bots[0]!, ADA, "POST", "/v1/tenant/pause", { reason: "load" });
  const setupStart = Date.now();
  // The runs first: while the triggers are set up, their due times come due and are held.
  const runs: Array<{ id: string }> = [];
  await inParallel(
    Array.from({ length: CLICKS }, (_, i) => i),
    8,
    async (i) => {
      const agent = i % AGENTS;
      runs.push(
        (await api(bots[i % PROCESSES]!, agentKey(agent), "POST", "/v1/runs", {
          agent: agentName(agent),
          operation: "pay",
          destination: actUrl,
          packet: { amount: i },
          reviewers: ["rita"],
          deadline: new Date(Date.now() + 3_600_000).toISOString(),
        })) as { id: string },
      );
    },
  );
  await inParallel(
    Array.from({ length: AGENTS }, (_, i) => i),
    8,
    async (i) => {
      await api(bots[i % PROCESSES]!, ADA, "POST", `/v1/agents/${agentName(i)}/triggers`, {
        key: "tick",
        every: EVERY_MS,
        misfire: "all",
        destination: tickUrl,
      });
    },
  );
  console.log(`  set up ${AGENTS} triggers and ${CLICKS} runs in ${((Date.now() - setupStart) / 1000).toFixed(1)} s`);

  const approveValues = () =>
    slack.callsTo("chat.postMessage").flatMap((call) => {
      const blocks = JSON.parse(String(slackArgs(call).blocks ?? "[]")) as Array<{
        elements?: Array<{ action_id?: string; value?: string }>;
      }>;
      return blocks.flatMap((b) => b.elements ?? []).filter((e) => e.action_id === "run.approve");
    });
  // A card can be slow to post under load: wait for the due times, then for the cards to stop coming.
  let cards = -1;
  for (;;) {
    const held = await store.db.occurrence.count({ where: { state: "HELD" } });
    const now = approveValues().length;
    if (held >= DUE && (now >= CLICKS || now === cards)) break;
    cards = held >= DUE ? now : -1;
    console.log(`  held ${held} of ${DUE}, cards ${now} of ${CLICKS}`);
    await sleep(5_000);
  }
  const heldAtResume = await store.db.occurrence.count({ where: { state: "HELD" } });
  console.log(`\n  ${heldAtResume} due times held; resuming`);

  const resumed = Date.now();
  await api(bots[1 % PROCESSES]!, ADA, "POST", "/v1/tenant/resume", {});
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  const clicking = inParallel(
    approveValues().map((e, k) => ({ value: e.value!, k })),
    CLICKS_AT_ONCE,
    async ({ value, k }) => {
      const body = blockActionsBody({
        action_id: "run.approve",
        value,
        user: { id: "U0RITA", team_id: TEAM },
        team: { id: TEAM },
        message: { ts: `1700000000.${String(k).padStart(6, "0")}`, channel: "DU0RITA" },
        response_url: slack.responseUrl(`load-${k}`),
      });
      const t = performance.now();
      const ack = await postSigned(`${bots[k % PROCESSES]!.url}/slack/events`, body, SECRET);
      await ack.text();
      latencies.push(performance.now() - t);
      statuses.set(ack.status, (statuses.get(ack.status) ?? 0) + 1);
    },
  );
  for (;;) {
    const open = await store.db.release.count({ where: { state: { not: "DONE" } } });
    if (open === 0) break;
    await sleep(250);
  }
  const releaseMs = Date.now() - resumed;
  await clicking;
  const atReleaseDone = bots.map((b) => rssMiB(b.child.pid!));
  // A full release: every released due time delivered. Then the steady state of 10,000 agents ticking, read
  // SETTLE_MS later (the figure issue 21 sets a target for), while the triggers go on.
  await releasedDelivered(store);
  const deliveredMs = Date.now() - resumed;
  await sleep(SETTLE_MS);
  const afterRelease = bots.map((b) => rssMiB(b.child.pid!));
  if (SNAPSHOTS) await heapSnapshots(bots, SNAPSHOTS);
  for (let i = 0; i < AGENTS; i++)
    await api(bots[i % PROCESSES]!, ADA, "DELETE", `/v1/agents/${agentName(i)}/triggers/tick`);
  for (;;) {
    const open = await store.db.outboxItem.count({ where: { state: { in: ["PLANNED", "DISPATCHED"] } } });
    if (open === 0) break;
    await sleep(500);
  }
  await sleep(1_000);

  const applied = await receiver.applied();
  const items = await store.db.outboxItem.findMany({ select: { id: true, kind: true, state: true } });
  const known = new Set(items.map((i) => i.id));
  const lost = items.filter((i) => (applied.get(i.id) ?? 0) === 0).length;
  const doubled = items.filter((i) => (applied.get(i.id) ?? 0) > 1).length;
  const strangers = [...applied.keys()].filter((k) => !known.has(k)).length;
  const stillHeld = await store.db.occurrence.count({ where: { state: "HELD" } });
  const approved = await store.db.run.count({ where: { state: "approved" } });
  const actions = items.filter((i) => i.kind === "action").length;
  latencies.sort((a, b) => a - b);
  const size = (await store.db.$queryRawUnsafe(
    "SELECT pg_database_size(current_database())::bigint AS bytes",
  )) as Array<{ bytes: bigint }>;

  console.log(
    `  release of ${heldAtResume} held due times: ${(releaseMs / 1000).toFixed(1)} s, ${(heldAtResume / (releaseMs / 1000)).toFixed(0)}/s (to every release DONE)`,
  );
  console.log(
    `  clicks: ${latencies.length}, acks ${JSON.stringify(Object.fromEntries(statuses))}, click-to-ack p50 ${percentile(latencies, 0.5).toFixed(1)} ms, p99 ${percentile(latencies, 0.99).toFixed(1)} ms; ${approved} runs approved, ${actions} actions`,
  );
  console.log(
    `  RSS per process (MB${NODE_FLAGS.length > 1 ? `, flags ${bots.map((_, p) => commandOf(p).slice(1, -1).join(" ") || "-").join(" | ")}` : ""}): peak ${bots.map((b) => mb(rssMiB(b.child.pid!, "VmHWM"))).join(", ")}; when the release was DONE (its deliveries still going out) ${atReleaseDone.map(mb).join(", ")}; ${SETTLE_MS / 1000} s after the last released due time was delivered (${(deliveredMs / 1000).toFixed(1)} s after the resume), the triggers still ticking: ${afterRelease.map(mb).join(", ")}`,
  );
  if (MEMORY_DIR) for (const bot of bots) console.log(memorySummary(MEMORY_DIR, bot.child.pid!));
  console.log(`  calls answered 503 (database busy) and tried again: ${retried503}`);
  console.log(`  database size: ${(Number(size[0]!.bytes) / 1024 / 1024).toFixed(1)} MB`);
  console.log(
    `  ${items.length} deliveries: lost ${lost}, received twice or more with one key ${doubled} (the destinations keep keys: applied once there), received without an item ${strangers}, still HELD ${stillHeld}`,
  );
  if (lost || doubled || strangers || stillHeld || approved !== CLICKS || actions !== CLICKS) process.exitCode = 1;
} catch (error) {
  // What the processes logged at error level says more than the failed call.
  for (const line of bots.flatMap((b) => b.logs).filter((l) => Number(l.level) >= 50))
    console.log(JSON.stringify(line));
  throw error;
} finally {
  for (const bot of bots) bot.child.kill("SIGKILL");
  await Promise.all(bots.map((b) => b.exited));
  await store.close();
  await slack.close();
  await receiver.close();
  await redis.stop();
  await database.drop();
  fs.rmSync(dir, { recursive: true, force: true });
}
process.exit();
