import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { Agent, request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { conversationPoster } from "../../src/bot/app/chat/conversation";
import { ADDRESS_REFUSED, guardLookup } from "../../src/queue/delivery/guarded-lookup.mjs";
import { httpTransport } from "../../src/queue/delivery/http-transport";
import type { OutboxItem } from "../../src/store/outbox/types";

const SECRET = `whsec_${crypto.randomBytes(32).toString("base64")}`;
const KEY = Buffer.from(SECRET.slice("whsec_".length), "base64");
const SIGNED = "acme:ops-agent";

/** A naive receiver: records every request's headers and body, answers 200. */
let server: http.Server;
let base: string;
const seen: Array<{ path: string; headers: http.IncomingHttpHeaders; body: string }> = [];
beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      seen.push({ path: req.url ?? "", headers: req.headers, body });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const item = (id: string, agentId: string, destination: string): OutboxItem =>
  ({ id, kind: "trigger", agentId, destination, payload: JSON.stringify({ id, text: "héllo" }) }) as OutboxItem;
const at = (path: string) => seen.find((s) => s.path === path)!;

describe("signed deliveries (Standard Webhooks)", () => {
  it("signs each POST of an agent with a key so that the standardwebhooks package verifies it", async () => {
    const transport = httpTransport(2_000, new Map([[SIGNED, KEY]]));
    try {
      const outcomes = await Promise.all([
        transport.send(item("acme:ops-agent:brief:1", SIGNED, `${base}/signed`), "a1"),
        transport.send(item("globex:other:brief:1", "globex:other", `${base}/unsigned`), "a1"),
      ]);
      expect(outcomes.map((o) => o.kind)).toEqual(["acknowledged", "acknowledged"]);
    } finally {
      await transport.close?.();
    }
    const signed = at("/signed");
    expect(signed.headers["webhook-id"]).toBe("acme:ops-agent:brief:1");
    expect(signed.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    const verified = new Webhook(SECRET).verify(signed.body, signed.headers as Record<string, string>);
    expect(verified).toEqual({ id: "acme:ops-agent:brief:1", text: "héllo" });
    // Any change to the body or the id fails verification.
    expect(() => new Webhook(SECRET).verify(`${signed.body} `, signed.headers as Record<string, string>)).toThrow();
    const forged = { ...(signed.headers as Record<string, string>), "webhook-id": "other" };
    expect(() => new Webhook(SECRET).verify(signed.body, forged)).toThrow();
    // An agent without a secret sends no signature headers at all.
    const unsigned = at("/unsigned");
    expect(Object.keys(unsigned.headers).filter((h) => h.startsWith("webhook-"))).toEqual([]);
  });

  it("signs chat messages forwarded to the agent's webhook with the same key", async () => {
    const post = conversationPoster(new Map([[SIGNED, KEY]]));
    const event = {
      type: "chat.message" as const,
      tenant: "acme",
      agent: "ops-agent",
      platform: "slack" as const,
      channel: "D1",
      messageId: "m1",
      user: "alice",
      text: "hi",
      isDirect: true,
      receivedAt: new Date().toISOString(),
    };
    expect(await post(`${base}/chat`, event, "slack:D1:m1")).toBe(true);
    const got = at("/chat");
    expect(got.headers["webhook-id"]).toBe("slack:D1:m1");
    expect(new Webhook(SECRET).verify(got.body, got.headers as Record<string, string>)).toEqual(event);
  });
});

describe("the address rule at send time", () => {
  it("refuses, before connecting, a destination whose address literal is link-local (a row stored before the rule)", async () => {
    const transport = httpTransport(2_000);
    try {
      const before = seen.length;
      const outcome = await transport.send(item("k-meta", SIGNED, "http://169.254.169.254./latest/"), "a1");
      // Not sent, and never sendable: FAILED at once, no retry (policy/delivery.ts).
      expect(outcome).toMatchObject({ kind: "not_sent", permanent: true });
      expect((outcome as { error: string }).error).toMatch(/link-local/);
      expect(seen.length).toBe(before);
    } finally {
      await transport.close?.();
    }
  });

  it("refuses a connection whose hostname resolves to a link-local or metadata address", async () => {
    const port = (server.address() as AddressInfo).port;
    const answers: Record<string, string> = {
      "metadata.test": "169.254.169.254",
      "mapped.test": "::ffff:169.254.169.254",
      "fine.test": "127.0.0.1",
    };
    // A resolver with dns.lookup's shape answering from the table, as a hostile DNS record would.
    const resolver = ((host: string, options: { all?: boolean }, cb: (...a: unknown[]) => void) => {
      const address = answers[host]!;
      const family = address.includes(":") ? 6 : 4;
      return options.all ? cb(null, [{ address, family }]) : cb(null, address, family);
    }) as never;
    const dispatcher = new Agent({ connect: { lookup: guardLookup(resolver) } });
    try {
      for (const host of ["metadata.test", "mapped.test"]) {
        const failure = await request(`http://${host}:${port}/dns`, { dispatcher, method: "POST", body: "x" }).catch(
          (error: NodeJS.ErrnoException) => error,
        );
        expect((failure as NodeJS.ErrnoException).code).toBe(ADDRESS_REFUSED);
        expect((failure as Error).message).toMatch(/resolves to .*169\.254\.169\.254|resolves to ::ffff/);
      }
      expect(seen.filter((s) => s.path === "/dns")).toHaveLength(0);
      const fine = await request(`http://fine.test:${port}/dns`, { dispatcher, method: "POST", body: "x" });
      await fine.body.dump();
      expect(fine.statusCode).toBe(200);
    } finally {
      await dispatcher.close();
    }
  });
});
