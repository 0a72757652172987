import http from "node:http";
import type { AddressInfo } from "node:net";
import { type DirectoryFile, loadDirectoryFile } from "../../src/bot/main/config/directory-file";

/**
 * The agent behind the example config's webhooks, for tests that run no bot process (where the demo receiver
 * would answer): it answers the resume's readiness call with the checkpoint Holdfast recorded, as an agent in
 * step with its record does, and 200 to anything else. One per test file, started on first use.
 */
let started: Promise<string> | null = null;

export const readinessReply = (body: { lastCheckpoint?: { name?: unknown } | null }) => ({
  ready: true,
  checkpoint: typeof body.lastCheckpoint?.name === "string" ? body.lastCheckpoint.name : null,
});

export function agentStandInUrl(): Promise<string> {
  started ??= new Promise((resolve) => {
    const server = http.createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      let body: { type?: unknown; lastCheckpoint?: { name?: unknown } | null } = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {}
      const answer = body?.type === "holdfast.readiness" ? readinessReply(body) : { ok: true };
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer));
    });
    server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
    server.unref();
  });
  return started;
}

/** The example directory with every agent's webhook at the stand-in (its destinations stay as written). */
export async function exampleDirectory(file: string, port?: number): Promise<DirectoryFile> {
  const directory = loadDirectoryFile(file, port);
  const url = await agentStandInUrl();
  for (const tenant of directory.tenants)
    for (const agent of tenant.agents) if (agent.webhook) agent.webhook = `${url}/agent`;
  return directory;
}
