import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createChatRouter } from "../../src/bot/surfaces/chat/router";
import type { ChatRouter, ChatTransport } from "../../src/bot/surfaces/chat/types";
import { PROVIDERS } from "../support/databases";
import { KEYS } from "../support/harness";
import { AGENT_KEYS, DESTINATION, type Doors, startDoors, stateDigest } from "./doors-harness";

const deep = (levels: number) => `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;
const deadline = () => new Date(Date.now() + 3_600_000).toISOString();

/** Every JSON route, with a key that passes its authentication. */
const JSON_ROUTES: Array<[string, string]> = [
  ["/v1/agents/ops-agent/pause", KEYS.alice],
  ["/v1/agents/ops-agent/resume", KEYS.alice],
  ["/v1/tenant/pause", KEYS.ada],
  ["/v1/tenant/resume", KEYS.ada],
  ["/v1/runs", AGENT_KEYS.ops],
  ["/v1/runs/r1/packet", AGENT_KEYS.ops],
  ["/v1/runs/r1/decisions", KEYS.rita],
  ["/v1/outbox/k1/reconcile", KEYS.alice],
  ["/v1/agents/ops-agent/triggers", KEYS.alice],
  ["/v1/agents/ops-agent/events", AGENT_KEYS.ops],
  ["/v1/agents/ops-agent/messages", AGENT_KEYS.ops],
];

describe.each(PROVIDERS)("%s: API inputs that answered 500", (provider) => {
  let d: Doors;
  beforeAll(async () => {
    d = await startDoors(provider);
  });
  afterAll(async () => d?.close());
  const post = (route: string, key: string, body: unknown) =>
    d.api("POST", route, key, typeof body === "string" ? body : JSON.stringify(body));
  const json = (answer: { body: string }) => JSON.parse(answer.body) as { error: string; field?: string };

  test("JSON nested deeper than 64 levels is a 400 on every JSON route; 64 levels parse", async () => {
    const before = await stateDigest(d);
    for (const [route, key] of JSON_ROUTES) {
      for (const levels of [65, 1570, 10_000]) {
        const answer = await post(route, key, deep(levels));
        expect([route, levels, answer.status, json(answer).error]).toEqual([route, levels, 400, "invalid_json"]);
      }
      const ok = await post(route, key, deep(64));
      expect([route, json(ok).error]).not.toEqual([route, "invalid_json"]);
      expect(ok.status).toBeLessThan(500);
    }
    expect(await stateDigest(d)).toBe(before);
  });

  test("NUL in a string field or a path parameter is a 400 and stores nothing", async () => {
    const before = await stateDigest(d);
    const cases: Array<[string, string, unknown, string]> = [
      ["/v1/agents/ops-agent/pause", KEYS.alice, { reason: "a\u0000b" }, "reason"],
      ["/v1/agents/ops-agent/events", AGENT_KEYS.ops, { eventId: "e\u0000", type: "t", payload: {} }, "eventId"],
      ["/v1/agents/ops-agent/triggers", KEYS.alice, { key: "k\u0000", every: "1h", destination: DESTINATION }, "key"],
      ["/v1/agents/ops-agent/events", AGENT_KEYS.ops, { eventId: "e", type: "t", payload: { "\u0000": 1 } }, ""],
      ["/v1/agents/ops\u0000agent/pause", KEYS.alice, { reason: "x" }, "agent"],
      ["/v1/runs/r%00/decisions", KEYS.rita, { eventId: "e", action: "approve", version: 1, digest: "d" }, "id"],
      ["/v1/outbox/k%00/reconcile", KEYS.alice, { resolution: "retry", note: "n" }, "key"],
    ];
    for (const [route, key, body, field] of cases) {
      const answer = await post(route.replace("\u0000", "%00"), key, body);
      expect([route, answer.status, json(answer).error]).toEqual([route, 400, "invalid_body"]);
      if (field) expect(json(answer).field).toContain(field);
    }
    expect((await d.api("GET", "/v1/agents/ops%00/control", KEYS.mia)).status).toBe(400);
    expect((await d.api("GET", "/v1/outbox?agent=a%00", KEYS.mia)).status).toBe(400);
    expect(await stateDigest(d)).toBe(before);
  });

  test("every fits its column up to 366 days; beyond, or 1e300, is a 400", async () => {
    const trigger = (key: string, every: unknown) =>
      post("/v1/agents/ops-agent/triggers", KEYS.alice, { key, every, destination: DESTINATION });
    for (const [key, every] of [
      ["monthly", "30d"],
      ["yearly", "366d"],
      ["ms", 31_622_400_000],
    ] as const) {
      const answer = await trigger(key, every);
      expect([key, answer.status]).toEqual([key, 201]);
    }
    const listed = JSON.parse((await d.api("GET", "/v1/agents/ops-agent/triggers", KEYS.mia)).body) as {
      items: Array<{ key: string; every: number }>;
    };
    expect(listed.items.find((t) => t.key === "yearly")?.every).toBe(31_622_400_000);
    const before = await stateDigest(d);
    for (const every of ["367d", 1e300, 2 ** 53, "1e300"]) {
      const answer = await trigger("too-long", every);
      expect([every, answer.status, json(answer).field]).toEqual([every, 400, "every"]);
    }
    expect(await stateDigest(d)).toBe(before);
  });

  test("escalateAfter is bounded: 2147483648 and 1e300 seconds are a 400", async () => {
    const run = (id: string, escalateAfter: unknown) =>
      post("/v1/runs", AGENT_KEYS.ops, {
        id,
        agent: "ops-agent",
        operation: "send",
        destination: DESTINATION,
        packet: {},
        deadline: deadline(),
        escalateAfter,
      });
    const before = await stateDigest(d);
    for (const value of [2_147_483_648, 1e300, "99999999d", "367d"]) {
      const answer = await run("esc-bad", value);
      expect([value, answer.status, json(answer).field]).toEqual([value, 400, "escalateAfter"]);
    }
    expect(await stateDigest(d)).toBe(before);
    expect((await run("esc-ok", "366d")).status).toBe(201);
  });
});

describe.each(PROVIDERS)("%s: chat inputs", (provider) => {
  let d: Doors;
  let router: ChatRouter;
  const via: ChatTransport = { platform: "telegram", checkCredentials: async () => ({ ok: true, detail: "test" }) };
  beforeAll(async () => {
    d = await startDoors(provider);
    router = createChatRouter({ ctx: d.ctx });
  });
  afterAll(async () => d?.close());
  const pause = async (text: string) => {
    const reply = await router.command(
      { name: "pause", text, actor: { platform: "telegram", userId: "7000002" }, channelId: "7000002" },
      via,
    );
    return reply.kind === "text" ? reply.text : "(a card)";
  };

  test("durations are bounded like the API's, with a clear reply, and nothing changes", async () => {
    const before = await stateDigest(d);
    for (const text of ["x 99999999999999999w", "x 10000000w", "x until 99999999999999999999d"]) {
      expect(await pause(text)).toContain("(until_too_far)");
    }
    expect(await pause("a\u0000b")).toContain("(unreadable_text)");
    expect(await stateDigest(d)).toBe(before);
    expect(await pause("x 2w")).toMatch(/paused by alice/);
  });
});
