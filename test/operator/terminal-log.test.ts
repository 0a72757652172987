import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { logLine } from "../../src/bot/main/log-line";

// The terminal format (LOG_FORMAT=pretty): one line per event with its key fields, never a raw object; and no
// log call writes a field of pino's own (a `level` field made the escalation line print as USERLVL).

describe("the terminal log", () => {
  it("shows each event's key fields on its line, first the ones a reader looks for", () => {
    const refused = { level: 30, time: 1, pid: 7, msg: "resume", outcome: "forbidden", agent: "acme:ops-agent" };
    expect(logLine({ ...refused, actor: "acme:mia" }, "msg")).toBe(
      "resume  actor=acme:mia agent=acme:ops-agent outcome=forbidden",
    );
    const failed = {
      msg: "delivery attempt failed",
      key: "acme:welcome-ana:1:send-welcome",
      destination: "http://127.0.0.1:4000/actions",
      class: "network",
      attempt: 2,
      result: "connect ECONNREFUSED 127.0.0.1:4000",
      state: "PLANNED",
    };
    expect(logLine(failed, "msg")).toBe(
      'delivery attempt failed  key=acme:welcome-ana:1:send-welcome destination=http://127.0.0.1:4000/actions state=PLANNED result="connect ECONNREFUSED 127.0.0.1:4000" class=network attempt=2',
    );
  });

  it("flattens objects into name.field=value and adds an error's message, with no JSON left", () => {
    const line = logLine(
      {
        msg: "release finished",
        totals: { occurrencesReleased: 2, events: 1, nested: { deep: { deeper: 1 } } },
        ids: ["a", "b"],
        err: { type: "Error", message: "boom", stack: "Error: boom\n at x" },
      },
      "msg",
    );
    expect(line).toBe("release finished: boom  totals.occurrencesReleased=2 totals.events=1 ids=a,b");
    expect(line).not.toMatch(/[{}]/);
  });

  it("counts a long list and does not repeat what the message says", () => {
    const applied = Array.from({ length: 13 }, (_, i) => `migration_${i}`);
    expect(logLine({ msg: "database: SQLite file /x/holdfast.db (13 migrations applied)", applied }, "msg")).toBe(
      "database: SQLite file /x/holdfast.db (13 migrations applied)  applied=13 items",
    );
    expect(logLine({ msg: "directory: /x/holdfast.example.yaml", configFile: "/x/holdfast.example.yaml" }, "msg")).toBe(
      "directory: /x/holdfast.example.yaml",
    );
  });

  it("shows a bidi control in a logged reason as a marker, as the console and the cards do", () => {
    expect(logLine({ msg: "pause", agent: "acme:ops-agent", reason: "vacation\u202e" }, "msg")).toBe(
      "pause  agent=acme:ops-agent reason=vacation⟨U+202E⟩",
    );
  });

  it("no log call in src writes a field of pino's own (level, time, pid, hostname, msg)", () => {
    const offenders: string[] = [];
    const walk = (dir: string): string[] =>
      fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
        const full = path.join(dir, e.name);
        return e.isDirectory() ? walk(full) : full.endsWith(".ts") && !full.includes("generated") ? [full] : [];
      });
    for (const file of walk(path.resolve("src"))) {
      const text = fs.readFileSync(file, "utf8");
      for (const call of text.matchAll(/\blog\.(?:trace|debug|info|warn|error|fatal)\(\s*\{([^}]*)\}/g))
        if (/(?:^|[\s,{])(?:level|time|pid|hostname|msg)\s*[:,]/.test(call[1] ?? ""))
          offenders.push(`${file}: ${call[0]}`);
    }
    expect(offenders).toEqual([]);
  });
});
