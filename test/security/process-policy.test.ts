import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { parseEnv } from "../../src/bot/config/env";

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
  it("is 127.0.0.1 with the example directory (its demo keys), 0.0.0.0 with a real one, HOST when given", () => {
    expect(parseEnv({}).HOST).toBe("127.0.0.1");
    expect(parseEnv({ HOLDFAST_CONFIG: "/etc/holdfast.yaml" }).HOST).toBe("0.0.0.0");
    expect(parseEnv({ HOST: "0.0.0.0" }).HOST).toBe("0.0.0.0");
    expect(parseEnv({ HOLDFAST_CONFIG: "/etc/holdfast.yaml", HOST: "10.0.0.5" }).HOST).toBe("10.0.0.5");
  });
});
