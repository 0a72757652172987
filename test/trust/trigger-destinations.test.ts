import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { alignTriggersWithConfig } from "../../src/bot/app/held/trigger-config";
import { type ConfigHarness, createConfigHarness } from "../support/config-harness";
import { PROVIDERS } from "../support/databases";

const ALICE = "alice-key-0000000001";
const MIA = "mia-key-00000000002";
const DECLARED = "http://127.0.0.1:4000/brief";
const WITH_LOOKUP = "https://crm.example/notes";

const config = {
  tenants: {
    acme: {
      users: { alice: { apiKey: ALICE }, mia: { apiKey: MIA } },
      limits: { maxTriggers: 3 },
      agents: {
        bot: {
          principal: "alice",
          destinations: {
            [DECLARED]: "key-retained 24h",
            [WITH_LOOKUP]: "unique-external-id lookup https://crm.example/notes/status",
          },
        },
        strict: { principal: "alice", destinations: { [DECLARED]: "none" }, limits: { minInterval: "2s" } },
      },
    },
  },
};

describe.each(PROVIDERS)("trigger destinations, contracts and quotas on %s", (provider) => {
  let h: ConfigHarness;
  beforeAll(async () => {
    h = await createConfigHarness(provider, config);
  });
  afterAll(() => h.close());

  const register = (body: Record<string, unknown>, agent = "bot") =>
    h.call("POST", `/v1/agents/${agent}/triggers`, ALICE, { every: "1m", ...body });
  const stored = () => h.ctx.store.db.trigger.count();

  it.each([
    "http://169.254.169.254/latest/meta-data/iam/security-credentials/",
    "http://[::ffff:169.254.169.254]/",
    "http://2852039166/",
    "http://0x7f.1/",
    "http://user:pw@127.0.0.1:6379/",
    "http://127.0.0.1:4000/brief/", // exact match only: a trailing slash is another URL
    "https://elsewhere.example/hook",
  ])("refuses %s, which is not a declared destination, with 400 naming the field", async (destination) => {
    const answer = await register({ key: "k", destination });
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ error: "invalid_body", field: "destination" });
    expect(await stored()).toBe(0);
  });

  it("takes a declared destination's contract from config, and refuses a lookup or another contract", async () => {
    const made = await register({ key: "declared", destination: WITH_LOOKUP });
    expect(made.status).toBe(201);
    expect(made.json.contract).toBe("unique-external-id lookup https://crm.example/notes/status");

    for (const contract of [
      "none lookup http://169.254.169.254/",
      "unique-external-id lookup https://crm.example/notes/status",
    ]) {
      const answer = await register({ key: "lookup", destination: WITH_LOOKUP, contract });
      expect(answer.status).toBe(400);
      expect(answer.json).toMatchObject({ error: "invalid_body", field: "contract" });
    }
    const other = await register({ key: "other", destination: DECLARED, contract: "unique-external-id" });
    expect(other.json).toMatchObject({ error: "invalid_body", field: "contract" });
    // The declared contract, spelled differently, is the same contract.
    const same = await register({ key: "same", destination: DECLARED, contract: "key-retained 1d" });
    expect(same.status).toBe(201);
    expect(same.json.contract).toBe("key-retained 24h");
    expect(await stored()).toBe(2);
  });

  it("refuses an interval or a cron below the agent's minimum interval with 400", async () => {
    const fast = await register({ key: "fast", destination: DECLARED, every: 50 });
    expect(fast.json).toMatchObject({ error: "invalid_body", field: "every" });
    const cron = await register(
      { key: "cron", destination: DECLARED, every: undefined, cron: "* * * * * *" },
      "strict",
    );
    expect(cron.json).toMatchObject({ error: "invalid_body", field: "cron" });
    const burst = await register(
      { key: "b", destination: DECLARED, every: undefined, cron: "0-5 * * * * *" },
      "strict",
    );
    expect(burst.json).toMatchObject({ error: "invalid_body", field: "cron" });
    expect((await register({ key: "ok", destination: DECLARED, every: "2s" }, "strict")).status).toBe(201);
  });

  it("refuses a trigger past the agent's count with 409 quota_exceeded; updating an existing key still works", async () => {
    await h.ctx.store.db.trigger.deleteMany({ where: { agentId: "acme:bot" } });
    for (const key of ["t1", "t2", "t3"]) expect((await register({ key, destination: DECLARED })).status).toBe(201);
    const fourth = await register({ key: "t4", destination: DECLARED });
    expect(fourth.status).toBe(409);
    expect(fourth.json.error).toBe("quota_exceeded");
    expect((await register({ key: "t2", destination: DECLARED, every: "5m" })).status).toBe(201);
    expect(await h.ctx.store.db.trigger.count({ where: { agentId: "acme:bot" } })).toBe(3);
  });

  it("pages the trigger list with limit and cursor; a foreign cursor is a 400", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const url = `/v1/agents/bot/triggers?limit=2${cursor ? `&cursor=${cursor}` : ""}`;
      const page = await h.call("GET", url, MIA);
      expect(page.status).toBe(200);
      expect(page.json.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.json.items.map((t: { key: string }) => t.key));
      cursor = page.json.nextCursor;
      pages++;
    } while (cursor);
    expect(seen).toEqual(["t1", "t2", "t3"]);
    expect(pages).toBe(2);
    const bad = await h.call("GET", "/v1/agents/bot/triggers?cursor=bm9wZQ", MIA);
    expect(bad.json).toMatchObject({ error: "invalid_body", field: "cursor" });
    expect((await h.call("GET", "/v1/agents/bot/triggers?limit=501", MIA)).status).toBe(400);
  });
});

describe.each(PROVIDERS)("triggers stored before their destination's entry changed, on %s", (provider) => {
  it("at start, removes a trigger whose destination is not declared and takes up the config's contract", async () => {
    const h = await createConfigHarness(provider, config);
    try {
      const db = h.ctx.store.db;
      const base = { tenantId: "acme", agentId: "acme:bot", everyMs: 60_000, payload: "null", misfire: "coalesce" };
      await db.trigger.create({
        data: { ...base, id: "acme:bot:legacy", key: "legacy", destination: "http://2852039166/" },
      });
      await db.trigger.create({
        data: { ...base, id: "acme:bot:kept", key: "kept", destination: DECLARED, contract: "none" },
      });
      await db.occurrence.create({
        data: {
          id: "o1",
          triggerId: "acme:bot:legacy",
          tenantId: "acme",
          agentId: "acme:bot",
          dueAt: new Date(),
          state: "HELD",
        },
      });
      expect(await alignTriggersWithConfig(h.ctx)).toEqual({ updated: 1, removed: 1 });
      expect(await db.trigger.findMany({ select: { id: true, contract: true } })).toEqual([
        { id: "acme:bot:kept", contract: "key-retained 24h" },
      ]);
      expect(await db.occurrence.findUnique({ where: { id: "o1" } })).toMatchObject({ state: "SKIPPED" });
      expect(await alignTriggersWithConfig(h.ctx)).toEqual({ updated: 0, removed: 0 });
    } finally {
      await h.close();
    }
  });
});
