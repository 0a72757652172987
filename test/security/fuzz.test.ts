import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { runKey } from "../../src/policy/ids";
import { slashCommandInteraction } from "../fakes/discord-fake";
import { PROVIDERS } from "../support/databases";
import { AGENT_KEYS, DESTINATION, type Doors, startDoors, stateDigest } from "./doors-harness";
import { discordHttpRequests, gatewayDispatches, type Send, slackRequests, telegramRequests } from "./fuzz-doors";
import { apiRequests } from "./fuzz-inputs";

// Property-based fuzzing of every door (README "Security"). Every generated request is one that must be
// refused, or that only reads; the properties: no 5xx, no crash (no unhandled rejection or uncaught
// exception), the guarded tables unchanged, and no configured secret in any log line.
// HOLDFAST_FUZZ_RUNS sets the runs per door (CI: the default); HOLDFAST_FUZZ_SEED replays a failure.

const RUNS = Number(process.env.HOLDFAST_FUZZ_RUNS ?? 500);
const SEED = process.env.HOLDFAST_FUZZ_SEED ? Number(process.env.HOLDFAST_FUZZ_SEED) : undefined;
const options = { numRuns: RUNS, ...(SEED !== undefined && { seed: SEED }), endOnFailure: true };
const TIMEOUT = 60_000 + RUNS * 100;

describe.each(PROVIDERS)("%s: fuzzing every door", (provider) => {
  let d: Doors;
  let before: string;
  let run: { id: string; version: number; digest: string };
  let approveToken: string;
  const crashes: unknown[] = [];
  const onCrash = (error: unknown) => void crashes.push(error);

  beforeAll(async () => {
    d = await startDoors(provider);
    await d.discord.ready;
    // One waiting run for rita, so stale digests and versions and foreign clicks have something to aim at.
    const created = await d.api(
      "POST",
      "/v1/runs",
      AGENT_KEYS.ops,
      JSON.stringify({
        id: "fuzz-run",
        agent: "ops-agent",
        operation: "send-invoice",
        destination: DESTINATION,
        packet: { amount: 1 },
        deadline: new Date(Date.now() + 86_400_000).toISOString(),
      }),
    );
    if (created.status !== 201) throw new Error(`setup: ${created.body}`);
    run = JSON.parse(created.body);
    await d.chat.cards.sync(runKey("acme", run.id)); // stored ids are tenant-scoped; the API's is the caller's
    const button = await d.db.store.db.chatButton.findFirstOrThrow({ where: { action: "run.approve" } });
    approveToken = button.id;
    before = await stateDigest(d);
    process.on("unhandledRejection", onCrash);
    process.on("uncaughtException", onCrash);
  }, 60_000);
  afterAll(async () => {
    process.off("unhandledRejection", onCrash);
    process.off("uncaughtException", onCrash);
    await d?.close();
  });

  /** Answers by door and status, printed with HOLDFAST_FUZZ_REPORT=1 (the README's figures). */
  const tally = new Map<string, number>();
  const count = (door: string, status: number) =>
    tally.set(`${door} ${status}`, (tally.get(`${door} ${status}`) ?? 0) + 1);
  const noServerError = (door: string) => async (send: Send) => {
    const answer = await send(d);
    if (!answer) return;
    count(door, answer.status);
    expect(answer.status, answer.body.slice(0, 200)).toBeLessThan(500);
  };

  test(
    "API routes",
    async () => {
      await fc.assert(
        fc.asyncProperty(apiRequests(run), async (r) => {
          const answer = await d.api(r.method, r.url, r.key, r.body, r.contentType);
          count("api", answer.status);
          expect(answer.status, answer.body.slice(0, 200)).toBeLessThan(500);
        }),
        options,
      );
    },
    TIMEOUT,
  );

  test(
    "Slack commands and interactions",
    async () => {
      await fc.assert(
        fc.asyncProperty(slackRequests(approveToken, d.slack.responseUrl("fuzz")), noServerError("slack")),
        options,
      );
    },
    TIMEOUT,
  );

  test(
    "Telegram updates",
    async () => {
      await fc.assert(fc.asyncProperty(telegramRequests(approveToken), noServerError("telegram")), options);
    },
    TIMEOUT,
  );

  test(
    "Discord HTTP interactions",
    async () => {
      await fc.assert(fc.asyncProperty(discordHttpRequests(approveToken), noServerError("discord-http")), options);
    },
    TIMEOUT,
  );

  test(
    "Discord gateway dispatches: each is followed by a command that is still answered",
    async () => {
      let n = 0;
      await fc.assert(
        fc.asyncProperty(gatewayDispatches(approveToken), async ({ event, data }) => {
          d.discord.dispatch(event, data);
          if (++n % 10 !== 0) return;
          // The gateway is one ordered socket: once this is answered, everything before it was handled.
          const id = `${9_800_000_000 + n}`;
          d.discord.dispatch(
            "INTERACTION_CREATE",
            slashCommandInteraction({
              id,
              token: `tok-${id}`,
              guildId: "900000000000000001",
              userId: "800000000000000006",
              name: "status",
            }),
          );
          await d.discord.waitFor((c) => c.path === `/api/v10/interactions/${id}/tok-${id}/callback`, 5_000);
        }),
        options,
      );
    },
    TIMEOUT,
  );

  test("afterwards: nothing crashed, nothing guarded changed, nothing failed in the background", async () => {
    await settle(d);
    if (process.env.HOLDFAST_FUZZ_REPORT) {
      console.info(provider, d.logs.length, "log lines", JSON.stringify(Object.fromEntries([...tally].sort())));
    }
    expect(crashes).toEqual([]);
    expect(await stateDigest(d)).toBe(before);
    const failures = d.logs.filter((line) => (JSON.parse(line) as { level: number }).level >= 50);
    expect(failures.slice(0, 5)).toEqual([]);
  });

  test("no configured secret or key appears in any log line", () => {
    expect(d.logs.length).toBeGreaterThan(RUNS);
    const leaks = d.secrets.filter((secret) => d.logs.some((line) => line.includes(secret)));
    expect(leaks).toEqual([]);
  });
});

/** Waits until the fakes have seen no new call for a while: background work (acks first) is done. */
async function settle(d: Doors): Promise<void> {
  const count = () => d.slack.calls.length + d.discord.calls.length + d.telegram.calls.length + d.agent.calls.length;
  let last = -1;
  while (count() !== last) {
    last = count();
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}
