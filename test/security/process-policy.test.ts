import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseEnv } from "../../src/bot/main/config/env";

describe("the process policy", () => {
  it("logs and counts an unhandled rejection and an uncaught exception, and keeps running", () => {
    const run = spawnSync(process.execPath, ["--import", "tsx", "test/security/fixtures/guarded-process.ts"], {
      encoding: "utf8",
      timeout: 20_000,
    });
    const lines = run.stdout
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { msg: string; counts?: object; err?: string });
    expect(run.status).toBe(0);
    expect(lines.map((l) => l.msg)).toEqual([
      "unhandled rejection: dropped, still serving",
      "uncaught exception: logged, still serving",
      "still alive",
    ]);
    expect(lines[0]!.err).toBe("a rejection nobody handles");
    expect(lines[2]!.counts).toEqual({ unhandledRejection: 1, uncaughtException: 1 });
  });
});

describe("the listening address", () => {
  it("the start log says the example directory listens on 127.0.0.1 only, and how to listen publicly", async () => {
    const dbFile = path.join(os.tmpdir(), `holdfast-host-${process.pid}.db`);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: `file:${dbFile}`,
      PORT: "0",
      LOG_LEVEL: "info",
    };
    delete env.HOST;
    delete env.HOLDFAST_CONFIG;
    const child = spawn(process.execPath, ["--import", "tsx", "src/bot/main/main.ts"], {
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      const warning = await new Promise<{ msg: string; host?: string }>((resolve, reject) => {
        let buffer = "";
        child.stdout.on("data", (chunk: Buffer) => {
          buffer += chunk.toString();
          const line = buffer.split("\n").find((l) => l.includes("listens on 127.0.0.1 only"));
          if (line) resolve(JSON.parse(line));
        });
        child.once("exit", () => reject(new Error(`exited before the warning: ${buffer}`)));
      });
      expect(warning).toMatchObject({ host: "127.0.0.1" });
      expect(warning.msg).toContain("set HOST=0.0.0.0");
    } finally {
      child.kill("SIGKILL");
      for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(`${dbFile}${suffix}`, { force: true });
    }
  });

  it("is 127.0.0.1 with the example directory (its demo keys), 0.0.0.0 with a real one, HOST when given", () => {
    expect(parseEnv({}).HOST).toBe("127.0.0.1");
    expect(parseEnv({ HOLDFAST_CONFIG: "/etc/holdfast.yaml" }).HOST).toBe("0.0.0.0");
    expect(parseEnv({ HOST: "0.0.0.0" }).HOST).toBe("0.0.0.0");
    expect(parseEnv({ HOLDFAST_CONFIG: "/etc/holdfast.yaml", HOST: "10.0.0.5" }).HOST).toBe("10.0.0.5");
  });
});
