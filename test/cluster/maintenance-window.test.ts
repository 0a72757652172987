import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { useBotCluster } from "../support/bot-cluster";
import { callBot } from "../support/bot-process";
import { type EffectReceiver, startEffectReceiver } from "../support/effect-receiver";
import { REDIS_URL } from "../support/held-harness";
import { until } from "../support/until";

/**
 * issue 22: a deployment-wide maintenance window opened on one of two processes on PostgreSQL. Both drain,
 * the window goes QUIESCED; ticks due meanwhile are held and released once at its end; a member's request
 * is refused and changes nothing; an approval made during the window is recorded and delivered once after it.
 */
const ADA = "maint-admin-key-0001";
const RITA = "maint-reviewer-key-0002";
const MIA = "maint-member-key-0003";
const AGENT = "maint-agent-key-0004";
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "holdfast-maint-cluster-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function writeConfig(receiver: EffectReceiver): string {
  const config = {
    tenants: {
      acme: {
        admins: ["ada"],
        users: { ada: { apiKey: ADA }, rita: { apiKey: RITA }, mia: { apiKey: MIA } },
        agents: {
          ops: {
            principal: "ada",
            reviewers: ["rita"],
            webhook: `${receiver.url}/agent`,
            agentKey: AGENT,
            destinations: { [`${receiver.url}/t`]: "none", [`${receiver.url}/act`]: "key-retained 24h" },
          },
        },
      },
    },
  };
  const file = path.join(dir, "holdfast.yaml");
  fs.writeFileSync(file, stringify(config));
  return file;
}

const api = callBot;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("a deployment-wide maintenance window on two processes (PostgreSQL)", () => {
  const cluster = useBotCluster("maint");

  it("drains both, holds ticks and approved actions, refuses a member, and releases once at the end", {
    timeout: 180_000,
  }, async () => {
    const receiver = await startEffectReceiver();
    try {
      const db = await cluster.database();
      const env = {
        DATABASE_URL: db.url,
        REDIS_URL,
        HOLDFAST_QUEUE_PREFIX: cluster.prefix,
        HOLDFAST_CONFIG: writeConfig(receiver),
        HOLDFAST_HEARTBEAT_INTERVAL: "500ms",
      };
      const [p1, p2] = await Promise.all([
        cluster.start({ ...env, HOLDFAST_INSTANCE: "maint-p1" }),
        cluster.start({ ...env, HOLDFAST_INSTANCE: "maint-p2" }),
      ]);
      const trigger = await api(p1!, ADA, "POST", "/v1/agents/ops/triggers", {
        key: "tick",
        every: 1000,
        misfire: "coalesce",
        destination: `${receiver.url}/t`,
      });
      expect(trigger.status).toBeLessThan(300);
      await until(
        async () => receiver.calls.filter((c) => c.path === "/t").length,
        (n) => n >= 1,
      );

      // A member may not open a window: 403, and nothing is written.
      const refused = await api(p2!, MIA, "POST", "/v1/maintenance", { scope: "deployment" });
      expect(refused.status).toBe(403);
      expect(await db.store.db.maintenance.count()).toBe(0);
      expect((await api(p1!, MIA, "GET", "/v1/instances")).status).toBe(403);

      const opened = await api(p2!, ADA, "POST", "/v1/maintenance", { scope: "deployment", reason: "deploy 1.2" });
      expect(opened.status).toBe(201);
      expect(opened.json).toMatchObject({ scope: "deployment", instance: null, state: "DRAINING", by: "acme:ada" });
      const id = opened.json.id as string;
      const window = await until(
        () => db.store.db.maintenance.findUnique({ where: { id } }),
        (w) => w?.state === "QUIESCED",
      );
      expect(window?.state).toBe("QUIESCED");
      const instances = (await api(p1!, ADA, "GET", "/v1/instances")).json.items;
      expect(instances.map((i: any) => [i.instance, i.state])).toEqual([
        ["maint-p1", "QUIESCED"],
        ["maint-p2", "QUIESCED"],
      ]);
      // Chat, the console and the API keep answering: /healthz stays 200 for a deployment-wide window.
      expect((await fetch(`${p1!.url}/healthz`)).status).toBe(200);

      await sleep(500); // a tick in flight at the start lands before the count
      const ticksBefore = receiver.calls.filter((c) => c.path === "/t").length;
      const created = await api(p1!, AGENT, "POST", "/v1/runs", {
        id: "in-window",
        agent: "ops",
        operation: "pay",
        destination: `${receiver.url}/act`,
        packet: { amount: 1 },
        reviewers: ["rita"],
        deadline: new Date(Date.now() + 600_000).toISOString(),
      });
      expect(created.status).toBe(201);
      const decision = { eventId: "click-1", action: "approve", version: 1, digest: created.json.digest };
      expect((await api(p2!, RITA, "POST", "/v1/runs/in-window/decisions", decision)).json.result).toBe("approved");
      await sleep(3500); // three ticks come due
      expect(receiver.calls.filter((c) => c.path === "/t").length).toBe(ticksBefore);
      expect(receiver.calls.filter((c) => c.path === "/act")).toEqual([]);
      const held = await db.store.db.occurrence.count({ where: { state: "HELD" } });
      expect(held).toBeGreaterThanOrEqual(3);

      expect((await api(p1!, MIA, "POST", `/v1/maintenance/${id}/end`)).status).toBe(403);
      const ended = await api(p1!, ADA, "POST", `/v1/maintenance/${id}/end`);
      expect(ended.status).toBe(200);
      expect(ended.json).toMatchObject({ id, state: "ENDED", releases: 1 });
      expect((await api(p1!, ADA, "POST", `/v1/maintenance/${id}/end`)).status).toBe(404);

      await until(
        async () => receiver.calls.filter((c) => c.path === "/act").length,
        (n) => n === 1,
      );
      const coalesced = await until(
        async () => receiver.calls.filter((c) => c.path === "/t" && String(c.key).includes(":release:")),
        (calls) => calls.length >= 1,
      );
      await sleep(2000);
      // Released once: one coalesced delivery for the held occurrences, each key once, the action once.
      expect(receiver.calls.filter((c) => c.path === "/t" && String(c.key).includes(":release:")).length).toBe(1);
      expect(coalesced.length).toBe(1);
      const keys = receiver.calls.map((c) => c.key);
      expect(new Set(keys).size).toBe(keys.length);
      expect(receiver.calls.filter((c) => c.path === "/act").length).toBe(1);
      expect(await db.store.db.occurrence.count({ where: { state: "HELD" } })).toBe(0);
      const audit = await db.store.db.maintenanceAudit.findMany({
        where: { maintenanceId: id },
        orderBy: { id: "asc" },
      });
      expect(audit.map((a) => `${a.fromState}->${a.toState}`)).toEqual([
        "RUNNING->DRAINING",
        "DRAINING->QUIESCED",
        "QUIESCED->ENDED",
      ]);
      const releaseAudit = await db.store.db.controlAudit.findMany({
        where: { reason: `maintenance window ${id} ended` },
      });
      expect(releaseAudit.length).toBe(1);
      // Both processes take work again.
      await until(
        async () => (await api(p2!, ADA, "GET", "/v1/instances")).json.items.map((i: any) => i.state),
        (states) => states.every((s: string) => s === "RUNNING"),
      );
    } finally {
      await receiver.close();
    }
  });
});

// Its own database and prefix: the first test's processes still run, and any live peer may classify a lost
// instance, so with them around the classifier named below would be a matter of timing.
describe("a lost instance on PostgreSQL", () => {
  const cluster = useBotCluster("maint-lost");

  it("a lost instance (SIGKILLed, never back) is classified by the other process", { timeout: 180_000 }, async () => {
    const receiver = await startEffectReceiver();
    try {
      const db = await cluster.database();
      const env = {
        DATABASE_URL: db.url,
        REDIS_URL,
        HOLDFAST_QUEUE_PREFIX: cluster.prefix,
        HOLDFAST_CONFIG: writeConfig(receiver),
        HOLDFAST_HEARTBEAT_INTERVAL: "500ms",
        HOLDFAST_DELIVERY_LEASE_MS: "120000", // only the classification frees the lease within the test
      };
      const doomed = await cluster.start({ ...env, HOLDFAST_INSTANCE: "lost-a" });
      const created = await api(doomed, AGENT, "POST", "/v1/runs", {
        id: "lost-run",
        agent: "ops",
        operation: "pay",
        destination: `${receiver.url}/act`,
        packet: { amount: 2 },
        reviewers: ["rita"],
        deadline: new Date(Date.now() + 600_000).toISOString(),
      });
      const key = "acme:lost-run:1:pay";
      receiver.behave = (call) =>
        call.key === key && receiver.calls.length === 1 ? { kind: "slow", ms: 120_000 } : { kind: "ok" };
      const decision = { eventId: "click-lost", action: "approve", version: 1, digest: created.json.digest };
      expect((await api(doomed, RITA, "POST", "/v1/runs/lost-run/decisions", decision)).json.result).toBe("approved");
      await until(
        async () => receiver.calls.filter((c) => c.key === key).length,
        (n) => n === 1,
      );
      const peer = await cluster.start({ ...env, HOLDFAST_INSTANCE: "lost-b" });
      doomed.child.kill("SIGKILL");
      await doomed.exited;
      const found = await peer.waitForLog((l) => String(l.msg).startsWith("unclean stop of lost-a found"), 30_000);
      expect(found).toMatchObject({ by: "lost-b", counts: { retry_same_key: 1 } });
      const rows = (await api(peer, ADA, "GET", "/v1/instances")).json.items;
      expect(rows.find((i: any) => i.instance === "lost-a")?.state).toBe("lost");
      // key-retained: sent again by the peer under the same key, long before the lease would have expired.
      await until(
        async () => receiver.calls.filter((c) => c.key === key).length,
        (n) => n === 2,
      );
      const audit = await db.store.db.maintenanceAudit.findMany({ where: { subject: key } });
      expect(audit.map((a) => [a.action, a.fromState, a.by])).toEqual([["classified", "DISPATCHED", "lost-b"]]);
      await new Promise((r) => setTimeout(r, 2000));
      expect(peer.logs.filter((l) => String(l.msg).startsWith("unclean stop of lost-a")).length).toBe(1);
    } finally {
      await receiver.close();
    }
  });
});
