import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { Webhook } from "standardwebhooks";
import { afterAll, describe, expect, it } from "vitest";
import { stringify as stringifyYaml } from "yaml";
import { isServing, spawnBot } from "../support/bot-process";
import { forgetPrefix, REDIS_URL } from "../support/held-harness";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "holdfast-signed-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("signed deliveries through the running bot", () => {
  it("signs an agent's event deliveries with its secret file, says once per unsigned agent, and logs no secret", async () => {
    const secret = `whsec_${crypto.randomBytes(32).toString("base64")}`;
    const seen: Array<{ headers: http.IncomingHttpHeaders; body: string }> = [];
    const receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        seen.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    const webhook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/agent`;
    fs.writeFileSync(path.join(dir, "signed.whsec"), `${secret}\n`);
    const agentKey = "signed-agent-key-0001";
    const config = {
      tenants: {
        acme: {
          users: { alice: { apiKey: "alice-key-000000001" } },
          agents: {
            signed: { principal: "alice", webhook, agentKey, signingSecretFile: "signed.whsec" },
            plain: { principal: "alice", webhook },
            quiet: { principal: "alice" },
          },
        },
      },
    };
    fs.writeFileSync(path.join(dir, "holdfast.yaml"), stringifyYaml(config));
    const prefix = `hf-signed-${crypto.randomUUID().slice(0, 8)}`;
    const bot = await spawnBot({
      HOLDFAST_CONFIG: path.join(dir, "holdfast.yaml"),
      DATABASE_URL: `file:${path.join(dir, "holdfast.db")}`,
      REDIS_URL,
      HOLDFAST_QUEUE_PREFIX: prefix,
    });
    try {
      await bot.waitForLog(isServing);
      const posted = await fetch(`${bot.url}/v1/agents/signed/events`, {
        method: "POST",
        headers: { authorization: `Bearer ${agentKey}`, "content-type": "application/json" },
        body: JSON.stringify({ eventId: "e1", type: "signature", payload: { n: 1 } }),
      });
      expect(posted.status).toBe(202);
      for (let i = 0; i < 100 && seen.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
      expect(seen).toHaveLength(1);
      expect(seen[0]!.headers["webhook-id"]).toBe("acme:signed:event:e1");
      const verified = new Webhook(secret).verify(seen[0]!.body, seen[0]!.headers as Record<string, string>);
      expect(verified).toMatchObject({ payload: { n: 1 } });

      const unsigned = bot.logs.filter(
        (l) => l.msg === `agent ${l.agent} has no signingSecret: its deliveries carry no webhook-signature`,
      );
      expect(unsigned.map((l) => l.agent).sort()).toEqual(["acme:plain", "acme:quiet"]);
      const text = bot.logs.map((l) => JSON.stringify(l)).join("\n");
      expect(text).not.toContain(secret.slice("whsec_".length, "whsec_".length + 16));
    } finally {
      bot.child.kill("SIGTERM");
      await bot.exited;
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
      await forgetPrefix(REDIS_URL, prefix);
    }
  });
});
