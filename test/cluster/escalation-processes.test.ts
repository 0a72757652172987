import { describe, expect, it } from "vitest";
import { startTelegramFake } from "../fakes/telegram-fake";
import { useBotCluster } from "../support/bot-cluster";
import { forgetPrefix, REDIS_URL } from "../support/held-harness";

// The example directory: ops-agent's secondary manager bob (Telegram 7000005) gets its one default level.
const BOB = "7000005";
const AGENT_KEY = "demo-key-acme-ops-agent-0007";
const RITA = "demo-key-acme-rita-0004";
const TOKEN = "777000:ESCALATION-PROCESSES";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("escalation pings with several bot processes on one PostgreSQL database", () => {
  const cluster = useBotCluster("esc");
  const { prefix } = cluster;

  it("pings each level once across two processes, a SIGKILL, a Redis loss and a replacement, and settles the card on resolve", async () => {
    const db = await cluster.database();
    const fake = await startTelegramFake(TOKEN);
    const env = {
      DATABASE_URL: db.url,
      REDIS_URL,
      HOLDFAST_QUEUE_PREFIX: prefix,
      HOLDFAST_MONITOR_INTERVAL: "500ms",
      TELEGRAM_BOT_TOKEN: TOKEN,
      TELEGRAM_API_ROOT: fake.url,
    };
    const start = () => cluster.start(env);
    const pingsToBob = () =>
      fake
        .callsTo("sendMessage")
        .map((c) => c.json as { chat_id: string | number; text: string })
        .filter((m) => String(m.chat_id) === BOB && m.text.startsWith("<b>Escalation level 1"));
    try {
      const [first, second] = [await start(), await start()];
      const created = await fetch(`${first.url}/v1/runs`, {
        method: "POST",
        headers: { authorization: `Bearer ${AGENT_KEY}`, "content-type": "application/json" },
        body: JSON.stringify({
          id: "esc-proc",
          agent: "ops-agent",
          operation: "send-invoice",
          destination: "http://127.0.0.1:4000/actions",
          packet: { invoice: 7 },
          deadline: new Date(Date.now() + 3_600_000).toISOString(),
          escalateAfter: 1,
        }),
      });
      expect(created.status).toBe(201);
      const run = (await created.json()) as { version: number; digest: string };
      for (let i = 0; i < 200 && pingsToBob().length === 0; i++) await sleep(100);
      expect(pingsToBob()).toHaveLength(1);
      await sleep(4_000); // about eight monitor ticks in each process
      expect(pingsToBob()).toHaveLength(1);

      // One process dies, Redis loses this deployment's keys, a replacement starts: still one ping.
      first.child.kill("SIGKILL");
      await first.exited;
      await forgetPrefix(REDIS_URL, prefix);
      const third = await start();
      await sleep(4_000);
      expect(pingsToBob()).toHaveLength(1);

      // Resolving the wait settles the ping card: edited, without buttons.
      const decided = await fetch(`${second.url}/v1/runs/esc-proc/decisions`, {
        method: "POST",
        headers: { authorization: `Bearer ${RITA}`, "content-type": "application/json" },
        body: JSON.stringify({ eventId: "rita-esc", action: "approve", version: run.version, digest: run.digest }),
      });
      expect(decided.status).toBe(200);
      const settled = () =>
        fake
          .callsTo("editMessageText")
          .map(
            (c) => c.json as { chat_id: string | number; text: string; reply_markup?: { inline_keyboard: unknown[] } },
          )
          .filter((m) => String(m.chat_id) === BOB && /<b>Resolved: approved by rita at /.test(m.text));
      for (let i = 0; i < 100 && settled().length === 0; i++) await sleep(100);
      expect(settled()).toHaveLength(1);
      expect(settled()[0]!.reply_markup?.inline_keyboard ?? []).toEqual([]);
      await sleep(2_000);
      expect(pingsToBob()).toHaveLength(1);
      expect(settled()).toHaveLength(1);
      for (const bot of [second, third]) bot.child.kill("SIGTERM");
      expect(await Promise.all([second.exited, third.exited])).toEqual([0, 0]);
    } finally {
      await fake.close();
    }
  }, 120_000);
});
