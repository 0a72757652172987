import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HoldfastApp, startApp } from "../../src/bot/main/app";
import { PORT_PLACEHOLDER } from "../../src/bot/main/config/directory-file";
import { parseEnv } from "../../src/bot/main/config/env";
import { lastMonitorTickAt } from "../../src/store/escalations/monitor-tick";
import { AGENT_KEY } from "../support/approvals";
import { createTestDatabase, PROVIDERS, type TestDatabase } from "../support/databases";
import { type EffectReceiver, startEffectReceiver } from "../support/effect-receiver";
import { EXAMPLE_CONFIG, KEYS } from "../support/harness";
import { forgetPrefix, REDIS_URL } from "../support/held-harness";

/** Prometheus text as `name{labels}` -> value (comments dropped). */
function parseExposition(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const at = line.lastIndexOf(" ");
    samples.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return samples;
}

/**
 * The real app (startApp: handlers, BullMQ expiry, the held runtime, the delivery loop) runs a scripted
 * scenario, and /metrics is scraped and each value checked: approvals approved, denied, expired and
 * superseded; a pause with held work; a release; a failed delivery; duplicates; escalation events.
 */
describe.each(PROVIDERS)("/metrics after a scripted scenario on %s", (provider) => {
  let db: TestDatabase;
  let app: HoldfastApp;
  let receiver: EffectReceiver;
  let configFile: string;
  const prefix = `hf-${crypto.randomUUID().slice(0, 8)}`;
  // The app's clock runs with the wall clock, and is moved on past the gauges' 5 s cache before each scrape.
  let offset = 0;
  const now = () => new Date(Date.now() + offset);

  beforeAll(async () => {
    receiver = await startEffectReceiver();
    receiver.behave = (call) => (call.path === "/reject" ? { kind: "status", status: 400 } : { kind: "ok" });
    const yaml = fs
      .readFileSync(EXAMPLE_CONFIG, "utf8")
      .replace(`webhook: http://127.0.0.1:${PORT_PLACEHOLDER}/demo/receiver`, `webhook: ${receiver.url}/agent`)
      .replace(
        '"http://127.0.0.1:4000/actions": "key-retained 24h"',
        `"${receiver.url}/actions": "key-retained 24h"\n          "${receiver.url}/reject": "none"`,
      );
    configFile = path.join(os.tmpdir(), `holdfast-metrics-${crypto.randomUUID()}.yaml`);
    fs.writeFileSync(configFile, yaml);
    db = await createTestDatabase(provider);
    await db.store.close();
    app = await startApp({
      env: parseEnv({
        PORT: "0",
        HOST: "127.0.0.1",
        DATABASE_URL: db.url,
        REDIS_URL,
        HOLDFAST_CONFIG: configFile,
        HOLDFAST_QUEUE_PREFIX: prefix,
        LOG_LEVEL: "silent",
      }),
      log: pino({ level: "silent" }),
      now,
    });
  });
  afterAll(async () => {
    await app?.stop();
    await receiver?.close();
    await db?.drop();
    await forgetPrefix(REDIS_URL, prefix);
    fs.rmSync(configFile, { force: true });
  });

  const call = async (method: "GET" | "POST", url: string, key: string, body?: unknown) => {
    const response = await fetch(`http://127.0.0.1:${app.port}${url}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: response.status, json: await response.json() };
  };
  const until = async (what: string, check: () => Promise<boolean>, timeoutMs = 15_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`${what}: not in ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const scrape = async () => {
    offset += 6_000;
    const response = await fetch(`http://127.0.0.1:${app.port}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain/);
    const text = await response.text();
    return { text, samples: parseExposition(text) };
  };
  const createRun = async (id: string, destination: string, deadlineMs = 3_600_000) => {
    const created = await call("POST", "/v1/runs", AGENT_KEY, {
      id,
      agent: "ops-agent",
      operation: "send-invoice",
      destination: `${receiver.url}${destination}`,
      packet: { invoice: id },
      deadline: new Date(now().getTime() + deadlineMs).toISOString(),
    });
    expect(created.status).toBe(201);
    return created.json as { version: number; digest: string };
  };
  const decide = async (id: string, action: "approve" | "deny", eventId = `ev-${id}`) => {
    const run = (await call("GET", `/v1/runs/${id}`, KEYS.rita)).json;
    return call("POST", `/v1/runs/${id}/decisions`, KEYS.rita, {
      eventId,
      action,
      version: run.version,
      digest: run.digest,
    });
  };
  const stateOf = async (id: string) => (await call("GET", `/v1/runs/${id}`, KEYS.rita)).json;

  it("counts and reads every series", async () => {
    // The gauge is the escalation monitor's last tick as the database holds it at the scrape.
    const lastTick = async () => ((await lastMonitorTickAt(app.ctx.store))?.getTime() ?? 0) / 1000;
    await until("the monitor's first tick", async () => (await lastTick()) > 0);
    const tickBefore = await lastTick();
    const before = (await scrape()).samples;
    const tickAfter = await lastTick();
    expect(before.get("holdfast_approvals_open")).toBe(0);
    const gauge = before.get("holdfast_monitor_last_tick_timestamp_seconds")!;
    expect(gauge).toBeGreaterThanOrEqual(tickBefore);
    expect(gauge).toBeLessThanOrEqual(tickAfter);
    expect([...before.keys()].some((k) => k.startsWith("process_cpu_user_seconds_total"))).toBe(true);

    // Approved and delivered; denied; expired by the scheduler; superseded by a new packet, then denied.
    const ok = await createRun("ok", "/actions");
    const approval = { eventId: "ev-ok", action: "approve", version: ok.version, digest: ok.digest };
    expect((await call("POST", "/v1/runs/ok/decisions", KEYS.rita, approval)).json.result).toBe("approved");
    // The same event again (a transport retry).
    expect((await call("POST", "/v1/runs/ok/decisions", KEYS.rita, approval)).json.result).toBe("duplicate");
    await createRun("no", "/actions");
    expect((await decide("no", "deny")).status).toBe(200);
    await createRun("late", "/actions", 1_000);
    await createRun("changed", "/actions");
    const saved = await call("POST", "/v1/runs/changed/packet", AGENT_KEY, { packet: { invoice: "changed v2" } });
    expect(saved.json.version).toBe(2);
    expect((await decide("changed", "deny")).status).toBe(200);
    // A failed delivery: the destination answers 400, so it is given up at once.
    await createRun("refused", "/reject");
    expect((await decide("refused", "approve")).status).toBe(200);
    // An agent retrying a create it already made.
    const retry = await call("POST", "/v1/runs", AGENT_KEY, {
      id: "ok",
      agent: "ops-agent",
      operation: "send-invoice",
      destination: `${receiver.url}/actions`,
      packet: { invoice: "ok" },
      deadline: new Date(now().getTime() + 3_600_000).toISOString(),
    });
    expect(retry.status).toBe(200);
    await until("the expiry", async () => (await stateOf("late")).state === "expired");
    await until("both deliveries", async () => {
      const [ok, refused] = [await stateOf("ok"), await stateOf("refused")];
      return ok.delivery?.state === "ACKNOWLEDGED" && refused.delivery?.state === "FAILED";
    });

    // A pause with held work: an approved action and an inbound event wait.
    expect((await call("POST", "/v1/agents/ops-agent/pause", KEYS.alice, { reason: "vacation" })).status).toBe(200);
    await createRun("held", "/actions");
    expect((await decide("held", "approve")).status).toBe(200);
    const event = { eventId: "evt-1", type: "signed", payload: { doc: 1 } };
    expect((await call("POST", "/v1/agents/ops-agent/events", AGENT_KEY, event)).status).toBe(202);
    expect((await call("POST", "/v1/agents/ops-agent/events", AGENT_KEY, event)).status).toBe(200); // duplicate
    await createRun("waiting", "/actions");
    app.ctx.events.emit("escalation.sent", 1);
    app.ctx.events.emit("escalation.sent", 2);
    app.ctx.events.emit("escalation.suppressed", "quiet_hours");

    const paused = await scrape();
    const p = paused.samples;
    expect(p.get('holdfast_held_items{kind="action"}')).toBe(1);
    expect(p.get('holdfast_held_items{kind="inbound_event"}')).toBe(1);
    expect(p.get('holdfast_held_items{kind="occurrence"}')).toBe(0);
    expect(p.get('holdfast_deliveries_pending{kind="action"}')).toBe(1);
    expect(p.get('holdfast_delivery_oldest_pending_created_timestamp_seconds{kind="action"}')).toBeGreaterThan(0);
    expect(p.get("holdfast_approvals_open")).toBe(1);
    const waitingSince = (await app.ctx.store.db.run.findFirstOrThrow({ where: { state: "waiting" } })).createdAt;
    expect(p.get("holdfast_approval_oldest_open_created_timestamp_seconds")).toBe(waitingSince.getTime() / 1000);
    expect(p.get('holdfast_escalations_sent_total{level="1"}')).toBe(1);
    expect(p.get('holdfast_escalations_sent_total{level="2"}')).toBe(1);
    expect(p.get('holdfast_escalations_suppressed_total{reason="quiet_hours"}')).toBe(1);

    // The release: resume, and the held action and event go out.
    const resumed = await call("POST", "/v1/agents/ops-agent/resume", KEYS.alice, {});
    expect(resumed.status).toBe(200);
    await until("the release", async () => {
      const release = await app.ctx.store.db.release.findFirst({ where: { state: "DONE" } });
      const held = await stateOf("held");
      // The event's row settled, not only reached the receiver: its attempt is counted before the mark.
      const event = await app.ctx.store.db.outboxItem.findFirst({
        where: { kind: "event", state: { in: ["ACKNOWLEDGED", "OBSERVED"] } },
      });
      return !!release && held.delivery?.state === "ACKNOWLEDGED" && !!event;
    });

    const after = await scrape();
    const s = after.samples;
    const resolved = (outcome: string) => s.get(`holdfast_approvals_resolved_total{outcome="${outcome}"}`);
    expect([resolved("approved"), resolved("denied"), resolved("expired"), resolved("superseded")]).toEqual([
      3, 2, 1, 1,
    ]);
    const waits = (outcome: string) => s.get(`holdfast_approval_wait_seconds_count{outcome="${outcome}"}`);
    expect([waits("approved"), waits("denied"), waits("expired"), waits("superseded")]).toEqual([3, 2, 1, 1]);
    // The expired run waited its whole second (the offset clock moved on by 6 s per scrape, none between).
    expect(s.get('holdfast_approval_wait_seconds_sum{outcome="expired"}')).toBeGreaterThanOrEqual(1);
    expect(s.get("holdfast_releases_started_total")).toBe(1);
    expect(s.get("holdfast_releases_finished_total")).toBe(1);
    expect(s.get("holdfast_release_duration_seconds_count")).toBe(1);
    expect(s.get('holdfast_delivery_attempts_total{kind="action",result="acknowledged"}')).toBe(2);
    expect(s.get('holdfast_delivery_attempts_total{kind="action",result="rejected"}')).toBe(1);
    expect(s.get('holdfast_delivery_attempts_total{kind="event",result="acknowledged"}')).toBe(1);
    expect(s.get('holdfast_delivery_permanent_failures_total{kind="action"}')).toBe(1);
    expect(s.get('holdfast_duplicates_suppressed_total{stage="decision"}')).toBe(1);
    expect(s.get('holdfast_duplicates_suppressed_total{stage="inbound_event"}')).toBe(1);
    expect(s.get('holdfast_duplicates_suppressed_total{stage="run_create"}')).toBe(1);
    expect(s.get("holdfast_duplicate_effects_detected_total")).toBe(0);
    expect(s.get('holdfast_held_items{kind="action"}')).toBe(0);
    expect(s.get('holdfast_held_items{kind="inbound_event"}')).toBe(0);
    expect(s.get('holdfast_deliveries_pending{kind="action"}')).toBeUndefined();
    expect(s.get("holdfast_approvals_open")).toBe(1);
    // No run, user or agent id is a label value anywhere.
    for (const id of ["ok", "refused", "held", "acme", "ops-agent", "rita", "alice", "evt-1"]) {
      expect(after.text).not.toMatch(new RegExp(`="[^"]*\\b${id}\\b[^"]*"`));
    }
  });
});
