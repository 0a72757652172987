import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { useBotCluster } from "../support/bot-cluster";
import { callBot } from "../support/bot-process";
import { REDIS_URL } from "../support/held-harness";

// A token lives in the database: minted on one process, honoured and revoked on the other (PostgreSQL).
const ALICE = "tokens-cluster-alice-01";
const AGENT = "tokens-cluster-agent-01";
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "holdfast-tokens-cluster-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function writeConfig(): string {
  const config = {
    tenants: {
      acme: {
        admins: [],
        users: { alice: { apiKey: ALICE } },
        agents: { ops: { principal: "alice", agentKey: AGENT } },
      },
    },
  };
  const file = path.join(dir, "holdfast.yaml");
  fs.writeFileSync(file, stringify(config));
  return file;
}

const api = callBot;

describe("agent tokens on two processes (PostgreSQL)", () => {
  const cluster = useBotCluster("tokens");

  it("a token minted on one process is honoured on the other, and a pause on either revokes it on both", {
    timeout: 120_000,
  }, async () => {
    const db = await cluster.database();
    const env = {
      DATABASE_URL: db.url,
      REDIS_URL,
      HOLDFAST_QUEUE_PREFIX: cluster.prefix,
      HOLDFAST_CONFIG: writeConfig(),
    };
    const [p1, p2] = await Promise.all([
      cluster.start({ ...env, HOLDFAST_INSTANCE: "tokens-p1" }),
      cluster.start({ ...env, HOLDFAST_INSTANCE: "tokens-p2" }),
    ]);
    const minted = await api(p1!, AGENT, "POST", "/v1/tokens", {});
    expect(minted.status).toBe(201);
    const token = minted.json.token as string;
    // An agent-only read: 404 for an unknown run once the token is accepted.
    expect((await api(p2!, token, "GET", "/v1/runs/no-such-run")).status).toBe(404);
    expect((await api(p1!, ALICE, "POST", "/v1/agents/ops/pause", { reason: "vacation" })).status).toBe(200);
    for (const bot of [p1!, p2!])
      expect(await api(bot, token, "GET", "/v1/runs/no-such-run")).toMatchObject({
        status: 401,
        json: { error: "token_revoked" },
      });
    expect((await api(p2!, ALICE, "POST", "/v1/agents/ops/resume", {})).status).toBe(200);
    const fresh = (await api(p2!, AGENT, "POST", "/v1/tokens", {})).json.token as string;
    expect((await api(p1!, fresh, "GET", "/v1/runs/no-such-run")).status).toBe(404);
  });
});
