import fs from "node:fs";
import path from "node:path";
import { stringify } from "yaml";
import type { Store } from "../src/store/connection/client";
import { sleep } from "../test/support/deployment";

/** The tenant of the load benchmarks (`npm run bench:load`, and the release-memory figure of `npm run bench`). */
export const LOAD_TEAM = "T0LOAD";
/** ada's API key: the tenant's admin. */
export const LOAD_ADMIN_KEY = "load-admin-key-0001";
export const agentName = (i: number) => `a${i}`;
export const agentKey = (i: number) => `load-agent-key-${String(i).padStart(6, "0")}`;

/**
 * Writes the directory file of tenant `acme` with `agents` agents (each allowed to send to `tickUrl` and
 * `actUrl`), ada its admin and rita its reviewer, and returns its path.
 */
export function writeLoadDirectory(dir: string, agents: number, tickUrl: string, actUrl: string): string {
  const entries: Record<string, unknown> = {};
  for (let i = 0; i < agents; i++)
    entries[agentName(i)] = {
      principal: "ada",
      reviewers: ["rita"],
      webhook: `${tickUrl}/agent`,
      agentKey: agentKey(i),
      signingSecret: `whsec_${Buffer.from(`load-webhook-secret-${String(i).padStart(8, "0")}`).toString("base64")}`,
      destinations: { [tickUrl]: "key-retained 24h", [actUrl]: "key-retained 24h" },
    };
  const config = {
    tenants: {
      acme: {
        slack: { teamId: LOAD_TEAM },
        admins: ["ada"],
        users: {
          ada: { apiKey: LOAD_ADMIN_KEY, slack: "U0ADA" },
          rita: { apiKey: "load-reviewer-key-0002", slack: "U0RITA" },
        },
        agents: entries,
      },
    },
  };
  const file = path.join(dir, "holdfast.yaml");
  fs.writeFileSync(file, stringify(config));
  return file;
}

/** Resolves once every due time a release released has been delivered (none PLANNED or DISPATCHED). */
export async function releasedDelivered(store: Store): Promise<void> {
  for (;;) {
    const [pending] = (await store.db.$queryRawUnsafe(
      `SELECT count(*)::int AS n FROM "Occurrence" o JOIN "OutboxItem" x ON x."id" = o."outboxId"
       WHERE o."releaseId" IS NOT NULL AND x."state" IN ('PLANNED', 'DISPATCHED')`,
    )) as Array<{ n: number }>;
    if (pending!.n === 0) return;
    await sleep(500);
  }
}
