import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { hashKey } from "../../src/policy/key-hash";
import { comingDay } from "../support/clock";
import { createConfigHarness } from "../support/config-harness";
import { PROVIDERS } from "../support/databases";
import { createHarness, type Harness, KEYS } from "../support/harness";

const AGENT_KEY = "demo-key-acme-ops-agent-0007";
/** An agent-only read: 404 for an unknown run once the key is accepted, 401/403 before that. */
const RUN = "/v1/runs/no-such-run";

describe.each(PROVIDERS)("agent tokens on %s", (provider) => {
  let h: Harness;
  let now: Date;
  const asKey = (method: "GET" | "POST", url: string, key: string, body?: unknown) =>
    h.http
      .inject({
        method,
        url,
        headers: {
          authorization: `Bearer ${key}`,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        payload: body === undefined ? undefined : JSON.stringify(body),
      })
      .then((r) => ({ status: r.statusCode, json: r.body ? JSON.parse(r.body) : null }));
  const mint = (body?: unknown, key = AGENT_KEY) => asKey("POST", "/v1/tokens", key, body);

  beforeEach(async () => {
    now = comingDay(9);
    h = await createHarness(provider, () => now);
  });
  afterEach(async () => h.close());

  it("mints a 15-minute token by default, stored only as its digest, that acts as the agent", async () => {
    const res = await mint();
    expect(res.status).toBe(201);
    expect(res.json.expiresAt).toBe(new Date(now.getTime() + 900_000).toISOString());
    const rows = await h.ctx.store.db.agentToken.findMany();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.id).toBe(hashKey(res.json.token));
    expect(JSON.stringify(rows)).not.toContain(res.json.token);
    expect((await asKey("GET", RUN, res.json.token)).status).toBe(404);
  });

  it("takes a ttl up to an hour and refuses more, or a bad one, with a 400 that writes nothing", async () => {
    const hour = await mint({ ttl: 3600 });
    expect(hour.json.expiresAt).toBe(new Date(now.getTime() + 3_600_000).toISOString());
    for (const ttl of [3601, 0, 1.5, "60"]) {
      const res = await mint({ ttl });
      expect(res.status).toBe(400);
      expect(res.json.error).toBe("invalid_body");
    }
    expect(await h.ctx.store.db.agentToken.count()).toBe(1);
  });

  it("refuses a person's key (403), a token minting another (403) and no key (401)", async () => {
    const person = await mint(undefined, KEYS.alice);
    expect(person.status).toBe(403);
    expect(person.json.error).toBe("forbidden");
    const token = (await mint()).json.token;
    expect((await mint(undefined, token)).status).toBe(403);
    expect((await h.http.inject({ method: "POST", url: "/v1/tokens" })).statusCode).toBe(401);
    expect(await h.ctx.store.db.agentToken.count()).toBe(1);
  });

  it("opens nothing a person's key opens: a token is the agent, not a user", async () => {
    const token = (await mint()).json.token;
    const res = await asKey("GET", "/v1/agents/ops-agent/control", token);
    expect(res.status).toBe(401);
  });

  it("refuses an expired token with 401 token_expired", async () => {
    const token = (await mint({ ttl: 60 })).json.token;
    now = new Date(now.getTime() + 60_000);
    const res = await asKey("GET", RUN, token);
    expect(res).toMatchObject({ status: 401, json: { error: "token_expired" } });
  });

  it("a pause of the agent revokes its tokens for good; after the resume a fresh one works", async () => {
    const old = (await mint()).json.token;
    await h.call("POST", "/v1/agents/ops-agent/pause", "alice", { reason: "vacation" });
    expect(await asKey("GET", RUN, old)).toMatchObject({ status: 401, json: { error: "token_revoked" } });
    await h.call("POST", "/v1/agents/ops-agent/resume", "alice", {});
    expect(await asKey("GET", RUN, old)).toMatchObject({ status: 401, json: { error: "token_revoked" } });
    const fresh = (await mint()).json.token;
    expect((await asKey("GET", RUN, fresh)).status).toBe(404);
  });

  it("a pause of the tenant, or a deployment-wide maintenance window, revokes the agent's tokens", async () => {
    const first = (await mint()).json.token;
    expect((await h.call("POST", "/v1/tenant/pause", "ada", { reason: "audit" })).status).toBe(200);
    expect((await asKey("GET", RUN, first)).json.error).toBe("token_revoked");
    await h.call("POST", "/v1/tenant/resume", "ada", {});
    const second = (await mint()).json.token;
    const window = await h.call("POST", "/v1/maintenance", "ada", { scope: "deployment", reason: "deploy" });
    expect(window.status).toBe(201);
    expect((await asKey("GET", RUN, second)).json.error).toBe("token_revoked");
  });
});

describe.each(PROVIDERS)("a tokensOnly agent on %s", (provider) => {
  const KEY = "tokens-only-agent-key-0001";
  const config = {
    tenants: {
      acme: {
        admins: ["ada"],
        users: { ada: { apiKey: "tokens-only-admin-key-01" } },
        agents: { bot: { principal: "ada", agentKey: KEY, tokensOnly: true } },
      },
    },
  };

  it("its key mints tokens and does nothing else; the token does the rest", async () => {
    const h = await createConfigHarness(provider, config);
    try {
      const byKey = await h.call("GET", "/v1/runs/no-such-run", KEY);
      expect(byKey).toMatchObject({ status: 403, json: { error: "tokens_only" } });
      const run = await h.call("POST", "/v1/runs", KEY, {});
      expect(run).toMatchObject({ status: 403, json: { error: "tokens_only" } });
      const minted = await h.call("POST", "/v1/tokens", KEY, {});
      expect(minted.status).toBe(201);
      expect((await h.call("GET", "/v1/runs/no-such-run", minted.json.token)).status).toBe(404);
    } finally {
      await h.close();
    }
  });
});
