import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { PROVIDERS } from "../support/databases";
import { useMcpServer } from "./mcp-client";

// `npm run example:agent` against a bot started here: paused first (it waits and says so), resumed, then one
// approval by rita; it records its checkpoint and ends with exit 0.
describe.each(PROVIDERS)("the example agent on %s", (provider) => {
  const server = useMcpServer(provider);

  it("waits while paused, goes through one approval and records its checkpoint", async () => {
    const { h, url } = server;
    expect((await h.call("POST", "/v1/agents/ops-agent/pause", "alice", { reason: "vacation" })).status).toBe(200);
    const child = spawn("npm", ["run", "--silent", "example:agent"], {
      // The harness declares the example's destinations for port 3000; this bot listens elsewhere, so the agent
      // is pointed at the other destination the example declares (nothing here depends on its delivery).
      env: {
        ...process.env,
        HOLDFAST_URL: url,
        HOLDFAST_PAUSE_POLL_MS: "200",
        HOLDFAST_DESTINATION: "http://127.0.0.1:4000/actions",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    const seen = async (pattern: RegExp) => {
      for (let i = 0; i < 300 && !pattern.test(output); i++) await new Promise((r) => setTimeout(r, 100));
      expect(output).toMatch(pattern);
      return pattern.exec(output)!;
    };
    try {
      await seen(/paused \(principal hold by alice: vacation\); waiting before the welcome email/);
      expect(output).not.toMatch(/requested approval/);
      expect((await h.call("POST", "/v1/agents/ops-agent/resume", "alice", {})).status).toBe(200);
      const [, id] = await seen(/requested approval (welcome-[0-9a-f]+)/);
      const run = (await h.call("GET", `/v1/runs/${id}`, "rita")).json;
      const decided = await h.call("POST", `/v1/runs/${id}/decisions`, "rita", {
        eventId: `example-${id}`,
        action: "approve",
        version: run.version,
        digest: run.digest,
      });
      expect(decided.status).toBe(200);
      expect(await exited).toBe(0);
    } finally {
      child.kill("SIGKILL");
    }
    expect(output).toMatch(/resumed: going on with the welcome email/);
    expect(output).toMatch(/decision: approved by rita at /);
    expect(output).toMatch(/checkpoint WELCOME_SENT recorded for welcome-/);
  }, 60_000);
});
