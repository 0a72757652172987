import { execFile } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DemoApp, startDemoApp } from "../support/console-app";
import { createTestDatabase, PROVIDERS } from "../support/databases";

// Every curl example of the README's "Try the API", run as written (bash and curl) against the quick start's
// bot (the real app on the example config, which seeds the demo), each checked against the answer the README
// shows under it (`# → `). Then nothing may be left FAILED, in review or being retried.

const run = promisify(execFile);

interface Example {
  command: string;
  /** The pieces of the answer the README shows, between its `…`. */
  answer: string[];
}

/** The README's "Try the API" block: its variable lines, and each curl with the answer shown under it. */
function readmeExamples(): { variables: string[]; examples: Example[]; curls: number } {
  const readme = fs.readFileSync(path.resolve("README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Try the API"));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
  const variables: string[] = [];
  const examples: Example[] = [];
  let command: string[] | null = null;
  for (const line of block.split("\n")) {
    if (command && line.startsWith("# → ")) {
      const answer = line
        .slice(4)
        .split("…")
        .map((piece) => piece.trim().replace(/^,\s*/, "").replace(/,$/, ""))
        .filter(Boolean);
      examples.push({ command: command.join("\n"), answer });
      command = null;
    } else if (command) command.push(line);
    else if (line.startsWith("curl ")) command = [line];
    else if (/^[A-Z]+=/.test(line)) variables.push(line);
  }
  return { variables, examples, curls: (block.match(/^curl /gm) ?? []).length };
}

describe.each(PROVIDERS)("the README's curl examples against the quick start's bot on %s", (provider) => {
  let demo: DemoApp;
  let drop: () => Promise<void> = async () => {};
  const { variables, examples, curls } = readmeExamples();

  /** Runs one example in bash with the README's variables, on this bot's port instead of 3000. */
  async function curl(command: string): Promise<string> {
    const port = new URL(demo.base).port;
    const script = [...variables, command].join("\n").replaceAll("127.0.0.1:3000", `127.0.0.1:${port}`);
    const { stdout } = await run("bash", ["-c", script], { timeout: 20_000 });
    return stdout;
  }

  beforeAll(async () => {
    let databaseUrl: string | undefined;
    if (provider === "postgresql") {
      const db = await createTestDatabase(provider);
      await db.store.close();
      databaseUrl = db.url;
      drop = db.drop;
    } else {
      const file = path.join(os.tmpdir(), `holdfast-readme-${crypto.randomUUID()}.db`);
      databaseUrl = `file:${file}`;
      drop = async () => {
        for (const suffix of ["", "-wal", "-shm", ".lock"]) fs.rmSync(`${file}${suffix}`, { force: true });
      };
    }
    demo = await startDemoApp({ databaseUrl });
    // As a person would: the bot has started and delivered the demo's seeded event before the first call.
    const until = Date.now() + 20_000;
    while (Date.now() < until) {
      const item = await demo.app.ctx.store.db.outboxItem.findFirst({ where: { kind: "event" } });
      if (item?.state === "ACKNOWLEDGED") break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }, 90_000);

  afterAll(async () => {
    await demo?.close();
    await drop();
  });

  it("finds an answer under every curl of the block", () => {
    expect(examples.length).toBeGreaterThanOrEqual(11);
    expect(examples).toHaveLength(curls);
  });

  it("answers every example as the README says, in order", async () => {
    for (const example of examples) {
      // A read may show work under way a moment longer (deliveries run on their own loop); a write runs once.
      const reads = !example.command.includes("-X POST");
      const until = Date.now() + (reads ? 20_000 : 0);
      let answer = await curl(example.command);
      while (reads && !example.answer.every((p) => answer.includes(p)) && Date.now() < until) {
        await new Promise((resolve) => setTimeout(resolve, 300));
        answer = await curl(example.command);
      }
      for (const piece of example.answer) expect(answer, `${example.command}\nanswered ${answer}`).toContain(piece);
    }
  }, 120_000);

  it("leaves nothing FAILED, in review or being retried", async () => {
    const items = await demo.app.ctx.store.db.outboxItem.findMany({ where: { agentId: "acme:ops-agent" } });
    expect(items.length).toBeGreaterThanOrEqual(3);
    for (const item of items) {
      expect(["PLANNED", "DISPATCHED", "ACKNOWLEDGED"], item.id).toContain(item.state);
      expect(item.attempts, item.id).toBeLessThanOrEqual(1);
      if (item.lastResult) expect(item.lastResult, item.id).toMatch(/^HTTP 200 /);
    }
    const failed = demo.lines.filter((l) => Number(l.level) >= 40 && /delivery|attempt/.test(String(l.msg)));
    expect(failed).toEqual([]);
    // The trigger the README registers sends to the demo receiver too.
    const trigger = await demo.app.ctx.store.db.trigger.findFirstOrThrow({ where: { key: "daily-report" } });
    expect(trigger.destination).toBe(`${demo.base}/demo/receiver`);
  });
});
