import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { decideRun } from "../../src/bot/app/approvals/decide-run";
import { runKey } from "../../src/policy/ids";
import { hashKey } from "../../src/policy/key-hash";
import { openStore, type Store } from "../../src/store/connection/client";
import { findUserByKeyHash } from "../../src/store/directory/directory";
import { createWaitingRun, declareDestinations, outboxCount } from "../support/approvals";
import { PROVIDERS } from "../support/databases";
import { createHarness, type Harness, KEYS } from "../support/harness";

const DESTINATION = "http://127.0.0.1:4000/actions";

// design.md section 5: the transition is a conditional update; of racing decisions exactly one wins.
describe("50 decisions in parallel on postgresql", () => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness("postgresql");
    await declareDestinations(h, { [DESTINATION]: "unique-external-id" });
  });
  afterEach(async () => h.close());

  it("lets exactly one win; the losers record nothing and queue nothing", async () => {
    const run = await createWaitingRun(h, {
      id: "race-1",
      destination: DESTINATION,
      deadline: new Date(Date.now() + 3_600_000),
      versions: 3,
    });
    const rita = (await findUserByKeyHash(h.ctx.store.db, hashKey(KEYS.rita)))!;
    const outcomes = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        decideRun(h.ctx, {
          runId: runKey("acme", run.id),
          eventId: `click-${i}`,
          action: i % 2 ? "deny" : "approve",
          version: run.version,
          digest: run.digest,
          actor: rita,
        }),
      ),
    );
    const results = outcomes.map((o) => o.result);
    const winners = results.filter((r) => r === "approved" || r === "denied");
    expect(winners).toHaveLength(1);
    expect(results.filter((r) => r === "stale" || r === "invalid_state")).toHaveLength(49);
    const stored = await h.ctx.store.db.run.findUniqueOrThrow({ where: { id: runKey("acme", run.id) } });
    expect({ state: stored.state, version: stored.version }).toEqual({ state: winners[0], version: 4 });
    expect(await h.ctx.store.db.decisionEvent.count({ where: { runId: runKey("acme", run.id) } })).toBe(1);
    expect(await outboxCount(h, runKey("acme", run.id))).toBe(winners[0] === "approved" ? 1 : 0);
  });

  it("answers the same event sent 20 times at once with one approval and duplicates", async () => {
    const run = await createWaitingRun(h, {
      id: "race-2",
      destination: DESTINATION,
      deadline: new Date(Date.now() + 3_600_000),
    });
    const rita = (await findUserByKeyHash(h.ctx.store.db, hashKey(KEYS.rita)))!;
    const event = {
      runId: runKey("acme", run.id),
      eventId: "retry-me",
      action: "approve" as const,
      version: 1,
      digest: run.digest,
      actor: rita,
    };
    const results = (await Promise.all(Array.from({ length: 20 }, () => decideRun(h.ctx, event)))).map((o) => o.result);
    expect(results.filter((r) => r === "approved")).toHaveLength(1);
    expect(results.filter((r) => r === "duplicate")).toHaveLength(19);
    expect(await outboxCount(h, runKey("acme", run.id))).toBe(1);
  });
});

// Clicks on one run take turns inside a process, an optimisation only: two processes (here two stores, each with
// its own connections, on one database) still race, and the database's conditional update picks one winner.
describe.each(PROVIDERS)("decisions racing from two processes on %s", (provider) => {
  let h: Harness;
  let other: Store;
  beforeEach(async () => {
    h = await createHarness(provider);
    await declareDestinations(h, { [DESTINATION]: "unique-external-id" });
    other = await openStore(h.db.url);
  });
  afterEach(async () => {
    await other.close();
    await h.close();
  });

  it("lets exactly one win across both; the others answer stale or duplicate and queue nothing", async () => {
    const run = await createWaitingRun(h, {
      id: "race-two",
      destination: DESTINATION,
      deadline: new Date(Date.now() + 3_600_000),
    });
    const rita = (await findUserByKeyHash(h.ctx.store.db, hashKey(KEYS.rita)))!;
    const contexts = [h.ctx, { ...h.ctx, store: other }];
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        decideRun(contexts[i % 2]!, {
          runId: runKey("acme", run.id),
          // Two clicks per event id, one through each process: a re-sent click is a duplicate wherever it lands.
          eventId: `click-${Math.floor(i / 2)}`,
          action: "approve",
          version: run.version,
          digest: run.digest,
          actor: rita,
        }),
      ),
    );
    const results = outcomes.map((o) => o.result);
    expect(results.filter((r) => r === "approved")).toHaveLength(1);
    expect(
      results.every((r) => ["approved", "stale", "invalid_state", "duplicate"].includes(r)),
      results.join(),
    ).toBe(true);
    expect(await h.ctx.store.db.decisionEvent.count({ where: { runId: runKey("acme", run.id) } })).toBe(1);
    expect(await outboxCount(h, runKey("acme", run.id))).toBe(1);
    const stored = await h.ctx.store.db.run.findUniqueOrThrow({ where: { id: runKey("acme", run.id) } });
    expect({ state: stored.state, version: stored.version }).toEqual({ state: "approved", version: 2 });
  });

  it("refuses a click carrying an old digest or version with stale, and the current version", async () => {
    const run = await createWaitingRun(h, {
      id: "race-stale",
      destination: DESTINATION,
      deadline: new Date(Date.now() + 3_600_000),
      versions: 2,
    });
    const rita = (await findUserByKeyHash(h.ctx.store.db, hashKey(KEYS.rita)))!;
    const base = { runId: runKey("acme", run.id), action: "approve" as const, actor: rita };
    const [oldVersion, oldDigest] = await Promise.all([
      decideRun(h.ctx, { ...base, eventId: "old-version", version: run.version - 1, digest: run.digest }),
      decideRun(
        { ...h.ctx, store: other },
        {
          ...base,
          eventId: "old-digest",
          version: run.version,
          digest: "0".repeat(64),
        },
      ),
    ]);
    expect(oldVersion).toMatchObject({ result: "stale", reason: "version", currentVersion: run.version });
    expect(oldDigest).toMatchObject({ result: "stale", reason: "digest", currentVersion: run.version });
    expect(await outboxCount(h, runKey("acme", run.id))).toBe(0);
  });
});
