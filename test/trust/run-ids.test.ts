import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConfigHarness, createConfigHarness } from "../support/config-harness";
import { PROVIDERS } from "../support/databases";

const DEST = "http://127.0.0.1:4000/actions";
const KEYS = {
  acmeAgent: "acme-agent-key-00001",
  globexAgent: "globex-agent-key-0001",
  rita: "rita-key-000000000001",
  gina: "gina-key-000000000001",
};
const agent = (reviewer: string, key: string) => ({
  principal: reviewer,
  reviewers: [reviewer],
  agentKey: key,
  destinations: { [DEST]: "none" },
  checkpoints: ["START", "DONE"],
});
const config = {
  tenants: {
    acme: { users: { rita: { apiKey: KEYS.rita } }, agents: { bot: agent("rita", KEYS.acmeAgent) } },
    globex: { users: { gina: { apiKey: KEYS.gina } }, agents: { bot: agent("gina", KEYS.globexAgent) } },
  },
};

describe.each(PROVIDERS)("run ids scoped per tenant on %s", (provider) => {
  let h: ConfigHarness;
  beforeAll(async () => {
    h = await createConfigHarness(provider, config);
  });
  afterAll(() => h.close());

  const create = (key: string, id: string, amount: number) =>
    h.call("POST", "/v1/runs", key, {
      id,
      agent: "bot",
      operation: "pay",
      destination: DEST,
      packet: { amount },
      reviewers: [key === KEYS.acmeAgent ? "rita" : "gina"],
      deadline: new Date(Date.now() + 3_600_000).toISOString(),
    });

  it("lets two tenants use the same run id: neither blocks, reveals nor reaches the other's run", async () => {
    const acme = await create(KEYS.acmeAgent, "doors-r1", 1);
    expect(acme.status).toBe(201);
    const globex = await create(KEYS.globexAgent, "doors-r1", 2);
    expect(globex.status).toBe(201);
    expect(globex.json.id).toBe("doors-r1");
    expect(globex.json.digest).not.toBe(acme.json.digest);

    expect((await h.call("GET", "/v1/runs/doors-r1", KEYS.rita)).json.digest).toBe(acme.json.digest);
    expect((await h.call("GET", "/v1/runs/doors-r1", KEYS.gina)).json.digest).toBe(globex.json.digest);
    // A decision reaches only the caller's own tenant's run.
    const decided = await h.call("POST", "/v1/runs/doors-r1/decisions", KEYS.gina, {
      eventId: "g1",
      action: "approve",
      version: 1,
      digest: globex.json.digest,
    });
    expect(decided.json.result).toBe("approved");
    expect((await h.call("GET", "/v1/runs/doors-r1", KEYS.rita)).json.state).toBe("waiting");
    const items = await h.ctx.store.db.outboxItem.findMany();
    expect(items.map((i) => [i.id, i.tenantId])).toEqual([["globex:doors-r1:1:pay", "globex"]]);
    expect(JSON.parse(items[0]!.payload)).toMatchObject({ run: "doors-r1" });
    // The same id again in the same tenant is still a conflict (or the same run back).
    expect((await create(KEYS.acmeAgent, "doors-r1", 3)).status).toBe(409);
  });

  it("lets a state delta name a run id another tenant uses: it creates the caller's own run", async () => {
    await create(KEYS.acmeAgent, "shared-2", 1);
    const event = await h.call("POST", "/v1/agents/bot/events", KEYS.globexAgent, {
      eventId: "e1",
      type: "step",
      payload: {},
      stateDelta: { runId: "shared-2", checkpoint: "START" },
    });
    expect(event.status).toBe(202);
    expect(event.json.run).toEqual({ id: "shared-2", checkpoint: "START" });
    expect((await h.call("GET", "/v1/runs/shared-2", KEYS.gina)).json).toMatchObject({ checkpoint: "START" });
    expect((await h.call("GET", "/v1/runs/shared-2", KEYS.rita)).json).toMatchObject({ state: "waiting" });
  });
});
