import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { commandUpdate, startTelegramFake } from "../fakes/telegram-fake";
import { isServing, spawnBot } from "../support/bot-process";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "holdfast-chat-process-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

it("npm start enables Telegram from *_FILE credentials, long-polls without a webhook secret, and stops cleanly", async () => {
  const token = "654321:PROCESS-TEST";
  const fake = await startTelegramFake(token);
  const tokenFile = path.join(dir, "telegram.token");
  fs.writeFileSync(tokenFile, `${token}\n`);
  try {
    const bot = await spawnBot({
      DATABASE_URL: `file:${path.join(dir, "holdfast.db")}`,
      REDIS_URL: process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
      TELEGRAM_BOT_TOKEN_FILE: tokenFile,
      TELEGRAM_API_ROOT: fake.url,
    });
    await bot.waitForLog(isServing);
    expect(bot.logs.some((l) => l.msg === "chat platform enabled" && l.platform === "telegram")).toBe(true);
    await fake.waitFor((c) => c.path.endsWith("/setMyCommands"));

    fake.queueUpdate(commandUpdate({ fromId: 7000006, text: "/status" }));
    const answer = await fake.waitFor((c) => c.path.endsWith("/sendMessage"), 10_000);
    expect((answer.json as { text: string }).text).toMatch(/^ops-agent is RUNNING\./);

    bot.child.kill("SIGTERM");
    expect(await bot.exited).toBe(0);
    expect(JSON.stringify(bot.logs)).not.toContain("PROCESS-TEST");
  } finally {
    await fake.close();
  }
});
