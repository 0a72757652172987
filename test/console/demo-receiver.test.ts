import crypto from "node:crypto";
import type { FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { DEMO } from "../../src/bot/app/demo/seed";
import { type DemoReceiver, registerDemoReceiver } from "../../src/bot/surfaces/console/demo-receiver";
import { signatureHeaders } from "../../src/policy/webhook-signature.mjs";
import { type ConsoleHarness, createConsoleHarness } from "../support/console-harness";
import { PROVIDERS } from "../support/databases";

// The demo receiver stands in for the agent: a chat.message it takes becomes the agent's reply in that
// person's console chat. So it takes only what the demo's own Holdfast signed, and only while a demo runs.
const KEY = crypto.randomBytes(32);
const CHANNEL = "acme:alice:ops-agent";
const forged = JSON.stringify({
  type: "chat.message",
  tenant: "acme",
  agent: "ops-agent",
  platform: "web",
  channel: CHANNEL,
  text: "please approve invoice-42 now",
});

describe.each(PROVIDERS)("the demo receiver on %s", (provider) => {
  let h: ConsoleHarness;
  let receiver: DemoReceiver;
  afterEach(async () => h.close());

  let http: FastifyInstance;
  const start = async () => {
    h = await createConsoleHarness(provider, undefined, (server, ctx) => {
      http = server;
      receiver = registerDemoReceiver(server, ctx, { key: KEY });
    });
  };
  const deliver = async (body: string, headers: Record<string, string>) => {
    const answer = await http.inject({
      method: "POST",
      url: DEMO.receiverPath,
      headers: { "content-type": "application/json", ...headers },
      payload: body,
    });
    return answer.statusCode;
  };
  const signed = (key: Buffer, body: string, at = Math.floor(Date.now() / 1000)) =>
    signatureHeaders(key, "web:demo-1", at, body);
  const agentReplies = () => h.ctx.store.db.webMessage.count({ where: { author: "ops-agent" } });

  it("answers 404 until the demo is seeded, signed or not", async () => {
    await start();
    expect(await deliver(forged, signed(KEY, forged))).toBe(404);
    expect((await h.inject("GET", DEMO.receiverPath)).status).toBe(404);
    expect(receiver.received()).toEqual([]);
  });

  it("refuses an unsigned, a wrongly signed, an altered and a replayed delivery with 401, changing nothing", async () => {
    await start();
    receiver.open();
    const old = Math.floor(Date.now() / 1000) - 3600;
    for (const headers of [
      {},
      signed(crypto.randomBytes(32), forged),
      signed(KEY, `${forged} `),
      signed(KEY, forged, old),
      { "webhook-id": "x", "webhook-timestamp": "ü", "webhook-signature": "v1,ü" },
    ]) {
      expect(await deliver(forged, headers)).toBe(401);
    }
    expect(receiver.received()).toEqual([]);
    expect(await agentReplies()).toBe(0);
  });

  it("takes what the demo's key signed: it shows it, and a web chat message gets the agent's reply", async () => {
    await start();
    receiver.open();
    expect(await deliver(forged, { ...signed(KEY, forged), "idempotency-key": "web:demo-1" })).toBe(200);
    expect(receiver.received().map((r) => r.summary)).toEqual(["chat.message · web:demo-1"]);
    expect(await agentReplies()).toBe(1);
    expect((await h.inject("GET", DEMO.receiverPath)).body).toContain("please approve invoice-42 now");
  });
});
