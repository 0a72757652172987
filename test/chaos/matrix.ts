import type { FaultPoint } from "../../src/policy/faults";
import type { BotProcess } from "../support/bot-process";
import { ADA, agentKey, agentName, api, pauseAgent, RITA, resumeAgent, sleep } from "../support/deployment";
import type { PausedWindow } from "../support/invariants";
import { approvedRun, events, msgOf, nextTick, quiet, type Scene, stopTicks, type Topology, ticks } from "./driver";

/** What an entry hands the check: its recovery time and what the invariants need to know of it. */
export interface Outcome {
  /** From the fault to the deployment at rest again (or to the first tick after it). */
  recoverMs: number;
  paused?: PausedWindow[];
  controlActions?: number;
  /** Entry-specific violations (a log flood, a second release, a decision counted twice). */
  violations?: string[];
}

export interface Entry {
  name: string;
  /** Where the full profile runs it; the CI profile runs `ci` entries on the single server only. */
  topologies: Topology[];
  ci: boolean;
  /** Set: the entry waits for something not built yet, and is reported as pending. */
  pending?: string;
  run?(scene: Scene): Promise<Outcome>;
}

const ALL: Topology[] = ["single", "sentinel", "cluster"];

/** Work of every kind on two processes: ticks (all, coalesce), three approved actions, three events. */
async function workload(scene: Scene, a: BotProcess, b: BotProcess): Promise<void> {
  await ticks(scene, a, 0, "all");
  await ticks(scene, b, 1, "coalesce");
  for (let i = 2; i < 5; i++) await approvedRun(scene, a, b, i);
  await events(b, 5, 3);
}

/**
 * SIGKILL at a delivery boundary: one process armed to pause there, one clean; more work until it is reached.
 * A fresh delivery whose lane is free is dispatched as it is planned (store/outbox/lease-at-plan.ts), with no
 * claim, by the process that planned it; so for the claim's own boundary every action's first call answers 503,
 * and its retry goes through the claim of whichever process takes it.
 */
function killAt(point: FaultPoint): Entry["run"] {
  return async (scene) => {
    if (point === "before-claim-commit") {
      const refused = new Set<string>();
      scene.receiver.behave = (call) => {
        if (!call.path.startsWith("/act/") || refused.has(call.key)) return { kind: "ok" };
        refused.add(call.key);
        return { kind: "status", status: 503 };
      };
    }
    const [armed, clean] = await Promise.all([scene.start({ HOLDFAST_PAUSE_AT: point }), scene.start()]);
    await workload(scene, armed, clean);
    const deadline = Date.now() + 20_000;
    let extra = 0;
    while (!armed.logs.some((l) => msgOf(l) === "test pause point reached")) {
      if (Date.now() > deadline) throw new Error(`pause point ${point} not reached`);
      await approvedRun(scene, armed, clean, 2 + (extra++ % 3));
      await sleep(300);
    }
    const at = Date.now();
    await scene.end(armed, "SIGKILL");
    await quiet(scene);
    return { recoverMs: Date.now() - at, controlActions: 0 };
  };
}

/** Agent 0 (all) and 1 (coalesce) paused with their due times held, `fault` in the middle, then resumed. */
function whilePaused(fault: (scene: Scene) => Promise<void>): Entry["run"] {
  return async (scene) => {
    const [a, b] = await Promise.all([scene.start(), scene.start()]);
    await ticks(scene, a, 0, "all");
    await ticks(scene, b, 1, "coalesce");
    await nextTick(scene, 0, 0, 15_000);
    const paused0 = await pauseAgent(a, 0);
    const paused1 = await pauseAgent(b, 1);
    await fault(scene);
    const at = Date.now();
    await sleep(1_500);
    const resumed = Date.now();
    await resumeAgent(b, 0);
    await resumeAgent(a, 1);
    await quiet(scene);
    return {
      recoverMs: Date.now() - at,
      paused: [
        { agent: 0, from: paused0, to: resumed },
        { agent: 1, from: paused1, to: resumed },
      ],
      controlActions: 4,
    };
  };
}

/** Agent 0 running with ticks; `fault`; the recovery is the first tick after it. */
function whileRunning(fault: (scene: Scene) => Promise<void>): Entry["run"] {
  return async (scene) => {
    const [a, b] = await Promise.all([scene.start(), scene.start()]);
    await ticks(scene, a, 0, "all");
    await events(b, 5, 2, "before");
    await nextTick(scene, 0, 0, 15_000);
    await fault(scene);
    const at = Date.now();
    const recoverMs = await nextTick(scene, 0, at);
    await events(a, 5, 2, "after");
    await quiet(scene);
    return { recoverMs, controlActions: 0 };
  };
}

async function releaseKill(scene: Scene): Promise<Outcome> {
  const armed = { HOLDFAST_PAUSE_AT: "release-batch", HOLDFAST_RELEASE_BATCH: "1" };
  const [a, b] = await Promise.all([scene.start(armed), scene.start(armed)]);
  for (let i = 0; i < 4; i++) await ticks(scene, i % 2 ? b : a, i, i % 2 ? "coalesce" : "all");
  await nextTick(scene, 0, 0, 15_000);
  const pausedAt = await pauseTenant(a);
  await sleep(2_000);
  const resumed = Date.now();
  await api(b, ADA, "POST", "/v1/tenant/resume", {});
  let replaced = false;
  const deadline = Date.now() + 40_000;
  for (;;) {
    for (const bot of scene.running()) {
      if (bot.logs.some((l) => msgOf(l) === "test crash point reached")) {
        await scene.end(bot, "SIGKILL");
        if (!replaced) {
          replaced = true;
          await scene.start();
        }
      }
    }
    if ((await scene.store.db.release.count({ where: { state: { not: "DONE" } } })) === 0 && replaced) break;
    if (Date.now() > deadline) throw new Error("the release did not finish");
    await sleep(100);
  }
  await quiet(scene);
  const paused = [0, 1, 2, 3].map((agent) => ({ agent, from: pausedAt, to: resumed }));
  return { recoverMs: Date.now() - resumed, paused, controlActions: 2 };
}

async function pauseTenant(bot: BotProcess): Promise<number> {
  let state = (await api(bot, ADA, "POST", "/v1/tenant/pause", { reason: "chaos" })).state;
  while (state !== "PAUSED") {
    await sleep(100);
    state = (await api(bot, ADA, "POST", "/v1/tenant/pause", { reason: "chaos" })).state;
  }
  return Date.now();
}

/** Named processes, so the one holding a delivery's lease is known (its lease token starts with the name). */
async function named(scene: Scene, names: string[], extra: Record<string, string> = {}): Promise<BotProcess[]> {
  return Promise.all(
    names.map((n) => scene.start({ HOLDFAST_INSTANCE: n, HOLDFAST_HEARTBEAT_INTERVAL: "500ms", ...extra })),
  );
}

/** The first call on an action path is held `ms` before it is applied: a delivery in flight. */
function slowFirstAction(scene: Scene, ms: number): void {
  let first = true;
  scene.receiver.behave = (call) => {
    if (!call.path.startsWith("/act/") || !first) return { kind: "ok" };
    first = false;
    return { kind: "slow", ms };
  };
}

async function actionInFlight(scene: Scene): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!scene.receiver.calls.some((c) => c.path.startsWith("/act/"))) {
    if (Date.now() > deadline) throw new Error("no action reached the receiver");
    await sleep(50);
  }
}

/** The instance whose lease the action in flight carries. */
async function holderOf(scene: Scene, names: string[]): Promise<number> {
  const item = await scene.store.db.outboxItem.findFirstOrThrow({ where: { kind: "action", state: "DISPATCHED" } });
  const index = names.findIndex((n) => item.leaseToken?.startsWith(`${n}-`));
  if (index < 0) throw new Error(`no process holds ${item.id} (lease ${item.leaseToken})`);
  return index;
}

/** An action in flight, its process SIGTERMed (DRAINING) and SIGKILLed mid-drain; the same instance starts again. */
async function drainKill(scene: Scene): Promise<Outcome> {
  const names = ["drain-a", "drain-b"];
  const bots = await named(scene, names);
  await ticks(scene, bots[0]!, 0, "all");
  await ticks(scene, bots[1]!, 1, "coalesce");
  slowFirstAction(scene, 6_000);
  await approvedRun(scene, bots[0]!, bots[1]!, 2);
  await actionInFlight(scene);
  const holder = await holderOf(scene, names);
  const bot = bots[holder]!;
  bot.child.kill("SIGTERM");
  await bot.waitForLog((l) => msgOf(l) === "maintenance: DRAINING", 10_000);
  await sleep(500);
  const at = Date.now();
  await scene.end(bot, "SIGKILL");
  const again = await named(scene, [names[holder]!]);
  await quiet(scene, 60_000);
  const violations: string[] = [];
  const row = await scene.store.db.instance.findUniqueOrThrow({ where: { instance: names[holder]! } });
  if (row.previousShutdown !== "unclean")
    violations.push(`the restart of ${row.instance} read its stop as ${row.previousShutdown}, not unclean`);
  // The restart, or the survivor that found the instance lost first, logs it once.
  const told = [bots[1 - holder]!, again[0]!].flatMap((b) => b.logs).map(msgOf);
  const lines = told.filter((m) => m.startsWith(`unclean stop of ${names[holder]}`)).length;
  if (lines !== 1) violations.push(`the unclean stop was logged ${lines} times, not once`);
  return { recoverMs: Date.now() - at, controlActions: 0, violations };
}

/**
 * A deployment-wide window opened while an action is in flight; its holder SIGKILLed while the window drains;
 * an approval made in the window; the killed instance started again inside it; then the window ends. Nothing
 * of any agent may start between QUIESCED and the end, and what the window held is released once.
 */
async function windowKill(scene: Scene): Promise<Outcome> {
  const names = ["window-a", "window-b"];
  const bots = await named(scene, names);
  await ticks(scene, bots[0]!, 0, "all");
  await ticks(scene, bots[1]!, 1, "coalesce");
  await nextTick(scene, 0, 0, 15_000);
  slowFirstAction(scene, 5_000);
  await approvedRun(scene, bots[0]!, bots[1]!, 2);
  await actionInFlight(scene);
  const holder = await holderOf(scene, names);
  const survivor = bots[1 - holder]!;
  const window = await api(survivor, ADA, "POST", "/v1/maintenance", { scope: "deployment", reason: "chaos" });
  await sleep(300);
  const at = Date.now();
  await scene.end(bots[holder]!, "SIGKILL");
  const deadline = Date.now() + 40_000;
  while ((await scene.store.db.maintenance.findUniqueOrThrow({ where: { id: window.id } })).state !== "QUIESCED") {
    if (Date.now() > deadline) throw new Error("the window did not go QUIESCED after the kill");
    await sleep(100);
  }
  const quiesced = Date.now();
  await approvedRun(scene, survivor, survivor, 3);
  const [again] = await named(scene, [names[holder]!]);
  await sleep(1_500);
  const ended = Date.now();
  await api(again!, ADA, "POST", `/v1/maintenance/${window.id}/end`, {});
  await quiet(scene, 60_000);
  const violations: string[] = [];
  const transitions = await scene.store.db.maintenanceAudit.count({
    where: { maintenanceId: window.id, action: "transition" },
  });
  if (transitions < 2) violations.push(`${transitions} audited transitions of the window`);
  return {
    recoverMs: Date.now() - at,
    paused: [0, 1, 2, 3].map((agent) => ({ agent, from: quiesced, to: ended })),
    controlActions: 1,
    violations,
  };
}

async function sigtermLongDelivery(scene: Scene): Promise<Outcome> {
  const bot = await scene.start();
  scene.receiver.behave = (call) => (call.path.startsWith("/act/") ? { kind: "slow", ms: 4_000 } : { kind: "ok" });
  await approvedRun(scene, bot, bot, 2);
  await scene.receiver.waitForCalls(1, 15_000);
  const at = Date.now();
  const code = await scene.end(bot, "SIGTERM");
  const violations = code === 0 ? [] : [`the SIGTERMed process exited ${code}, not 0 after its drain`];
  const item = await scene.store.db.outboxItem.findFirst({ where: { kind: "action" } });
  if (item?.state !== "ACKNOWLEDGED" && item?.state !== "OBSERVED")
    violations.push(`the long delivery is ${item?.state} after the SIGTERM's drain`);
  return { recoverMs: Date.now() - at, controlActions: 0, violations };
}

async function databaseDown(scene: Scene): Promise<Outcome> {
  const [a, b] = await Promise.all([scene.start(), scene.start()]);
  await workload(scene, a, b);
  await nextTick(scene, 0, 0, 15_000);
  await scene.store.close();
  const before = scene.bots.map((bot) => bot.logs.length);
  await scene.pg.stop();
  const down = Date.now();
  await sleep(4_000);
  const lateCalls = scene.receiver.calls.filter((c) => c.at > down + 500);
  await scene.pg.start();
  const at = Date.now();
  const recoverMs = await nextTick(scene, 0, at);
  await sleep(1_500);
  // The gate holds what is not yet dispatched. A call that arrives late but was dispatched (its gate read, its
  // DISPATCHED mark committed) before the server stopped is the tail of work already decided: under load its
  // POST can leave the delivery thread well after the commit. Only a dispatch after the stop breaks the rule.
  const dispatchedAt = new Map(
    (
      await scene.store.db.outboxItem.findMany({
        where: { id: { in: lateCalls.map((c) => c.key) } },
        select: { id: true, firstDispatchedAt: true },
      })
    ).map((i) => [i.id, i.firstDispatchedAt?.getTime() ?? Number.POSITIVE_INFINITY]),
  );
  const dispatchedWhileDown = lateCalls.filter((c) => (dispatchedAt.get(c.key) ?? Number.POSITIVE_INFINITY) >= down);
  const violations = dispatchedWhileDown.length
    ? [`${dispatchedWhileDown.length} calls dispatched while the database was down`]
    : [];
  scene.bots.forEach((bot, i) => {
    const warned = bot.logs
      .slice(before[i])
      .filter((l) => Number(l.level) >= 40)
      .map(msgOf);
    const expected = warned.length ? ["database is unreachable", "database is back"] : [];
    if (JSON.stringify(warned) !== JSON.stringify(expected))
      violations.push(`process ${i} logged ${warned.length} lines: ${[...new Set(warned)].join(" | ")}`);
  });
  return { recoverMs, controlActions: 0, violations };
}

async function databaseRestartMidRelease(scene: Scene): Promise<Outcome> {
  const [a, b] = await Promise.all([
    scene.start({ HOLDFAST_RELEASE_BATCH: "1" }),
    scene.start({ HOLDFAST_RELEASE_BATCH: "1" }),
  ]);
  for (let i = 0; i < 6; i++) await ticks(scene, i % 2 ? b : a, i, i % 2 ? "coalesce" : "all");
  await nextTick(scene, 0, 0, 15_000);
  const pausedAt = await pauseTenant(a);
  await sleep(2_500);
  const resumed = Date.now();
  await api(b, ADA, "POST", "/v1/tenant/resume", {});
  await scene.store.close();
  await scene.pg.stop();
  await sleep(1_500);
  await scene.pg.start();
  await quiet(scene, 60_000);
  const paused = [0, 1, 2, 3, 4, 5].map((agent) => ({ agent, from: pausedAt, to: resumed }));
  return { recoverMs: Date.now() - resumed, paused, controlActions: 2 };
}

/** The receiver applies the first call of each key, then cuts the connection: the sender cannot know. */
async function lostAck(scene: Scene): Promise<Outcome> {
  const seen = new Set<string>();
  scene.receiver.behave = (call) => {
    if (seen.has(call.key)) return { kind: "ok" };
    seen.add(call.key);
    return { kind: "apply-then-drop" };
  };
  return unreliableReceiver(scene);
}

/** The receiver holds the first call of each action past the 10 s delivery timeout, then applies it. */
async function slowReceiver(scene: Scene): Promise<Outcome> {
  const seen = new Set<string>();
  scene.receiver.behave = (call) => {
    if (!call.path.startsWith("/act/") || seen.has(call.key)) return { kind: "ok" };
    seen.add(call.key);
    return { kind: "slow", ms: 11_000 };
  };
  return unreliableReceiver(scene);
}

async function unreliableReceiver(scene: Scene): Promise<Outcome> {
  const [a, b] = await Promise.all([scene.start(), scene.start()]);
  const at = Date.now();
  await ticks(scene, a, 0, "all");
  for (let i = 2; i < 4; i++) await approvedRun(scene, a, b, i);
  await sleep(3_000);
  // Every tick's first send is in doubt and waits out a retry delay before its review, so with ticks still
  // coming every 500 ms some tick is always DISPATCHED: the scene comes to rest only once they stop.
  await stopTicks(a, 0);
  await quiet(scene, 60_000);
  return { recoverMs: Date.now() - at, controlActions: 0 };
}

async function racingResumes(scene: Scene): Promise<Outcome> {
  const [a, b] = await Promise.all([scene.start(), scene.start()]);
  await ticks(scene, a, 0, "all");
  await nextTick(scene, 0, 0, 15_000);
  const pausedAt = await pauseAgent(a, 0);
  await sleep(2_000);
  const resumed = Date.now();
  const answers = await Promise.allSettled([resumeAgent(a, 0), resumeAgent(b, 0)]);
  await quiet(scene);
  const violations: string[] = [];
  const won = answers.filter((r) => r.status === "fulfilled").length;
  if (won !== 1) violations.push(`${won} of 2 racing resumes won`);
  const releases = await scene.store.db.release.count();
  if (releases !== 1) violations.push(`${releases} releases for one resume`);
  return {
    recoverMs: Date.now() - resumed,
    paused: [{ agent: 0, from: pausedAt, to: resumed }],
    controlActions: 3,
    violations,
  };
}

async function concurrentDecisions(scene: Scene): Promise<Outcome> {
  const bots = await Promise.all([scene.start(), scene.start()]);
  const run = await api(bots[0], agentKey(2), "POST", "/v1/runs", {
    agent: agentName(2),
    operation: "pay",
    destination: `${scene.receiver.url}/act/2`,
    packet: { amount: 1 },
    reviewers: ["rita"],
    deadline: new Date(Date.now() + 600_000).toISOString(),
  });
  const at = Date.now();
  const answers = await Promise.all(
    Array.from({ length: 50 }, (_, k) =>
      fetch(`${bots[k % 2]!.url}/v1/runs/${run.id}/decisions`, {
        method: "POST",
        headers: { authorization: `Bearer ${RITA}`, "content-type": "application/json" },
        body: JSON.stringify({
          eventId: `d-${k}`,
          action: k % 2 ? "deny" : "approve",
          version: run.version,
          digest: run.digest,
        }),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> })),
    ),
  );
  await quiet(scene);
  const violations: string[] = [];
  const errors = answers.filter((a) => a.status >= 500);
  if (errors.length) violations.push(`${errors.length} decisions answered 5xx`);
  const stored = await scene.store.db.run.findFirstOrThrow({ where: { id: { endsWith: run.id } } });
  const actions = await scene.store.db.outboxItem.count({ where: { kind: "action" } });
  if (stored.state === "approved" && actions !== 1) violations.push(`approved, with ${actions} actions`);
  if (stored.state !== "approved" && actions !== 0) violations.push(`${stored.state}, with ${actions} actions`);
  if (stored.state === "waiting") violations.push("no decision took effect");
  return { recoverMs: Date.now() - at, controlActions: 0, violations };
}

export const MATRIX: Entry[] = [
  { name: "kill before the claim commits", topologies: ALL, ci: true, run: killAt("before-claim-commit") },
  {
    name: "kill after the claim, before the send",
    topologies: ["single"],
    ci: true,
    run: killAt("after-dispatch-mark"),
  },
  {
    name: "kill after the effect, before the ack",
    topologies: ["single"],
    ci: true,
    run: killAt("before-acknowledge"),
  },
  { name: "kill after the ack", topologies: ["single"], ci: true, run: killAt("after-acknowledge") },
  { name: "kill during a release", topologies: ["single"], ci: true, run: releaseKill },
  { name: "kill during a drain", topologies: ["single"], ci: true, run: drainKill },
  { name: "kill during a deployment-wide window", topologies: ["single"], ci: true, run: windowKill },
  { name: "SIGTERM during a long delivery", topologies: ["single"], ci: true, run: sigtermLongDelivery },
  {
    name: "Redis restart while paused",
    topologies: ["single", "cluster"],
    ci: true,
    run: whilePaused((s) => s.redis.restart()),
  },
  {
    name: "Redis restart while running",
    topologies: ["single", "cluster"],
    ci: true,
    run: whileRunning((s) => s.redis.restart()),
  },
  { name: "Redis FLUSHALL while paused", topologies: ALL, ci: true, run: whilePaused((s) => s.redis.flushAll()) },
  { name: "Redis FLUSHALL while running", topologies: ALL, ci: true, run: whileRunning((s) => s.redis.flushAll()) },
  {
    name: "Sentinel failover while paused",
    topologies: ["sentinel"],
    ci: true,
    run: whilePaused(async (s) => void (await s.redis.failover!())),
  },
  {
    name: "Sentinel failover while running",
    topologies: ["sentinel"],
    ci: true,
    run: whileRunning(async (s) => void (await s.redis.failover!())),
  },
  { name: "PostgreSQL down during ticks", topologies: ["single"], ci: true, run: databaseDown },
  { name: "PostgreSQL restarted mid-release", topologies: ["single"], ci: true, run: databaseRestartMidRelease },
  { name: "a lost acknowledgement", topologies: ["single"], ci: true, run: lostAck },
  { name: "a slow receiver past the delivery timeout", topologies: ["single"], ci: true, run: slowReceiver },
  { name: "two processes racing to run one release", topologies: ["single"], ci: true, run: racingResumes },
  { name: "50 concurrent decisions through two processes", topologies: ["single"], ci: true, run: concurrentDecisions },
];
