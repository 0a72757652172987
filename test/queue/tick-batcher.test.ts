import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTickBatcher } from "../../src/queue/held/tick-batcher";
import { createTestDatabase, PROVIDERS, type TestDatabase } from "../support/databases";

describe.each(PROVIDERS)("the tick batcher's group commit on %s", (provider) => {
  let database: TestDatabase;
  beforeEach(async () => {
    database = await createTestDatabase(provider);
  });
  afterEach(() => database.drop());

  it("writes one batch at a time, and a batch's ticks are answered before the next batch is written", async () => {
    const events: string[] = [];
    let batches = 0;
    const batcher = createTickBatcher({
      store: database.store,
      now: () => new Date(),
      maxBatch: 200,
      async committed() {
        events.push(`commit ${++batches}`);
      },
    });
    // 450 ticks arrive in one turn, as a message from the tick thread does (unknown triggers: nothing to plan).
    const answered = Array.from({ length: 450 }, (_, i) =>
      batcher.add({ triggerId: `gone:${i}`, millis: Date.now() }).then(() => {
        events.push(`answer ${i}`);
      }),
    );
    await Promise.all(answered);

    const commits = events.flatMap((event, at) => (event.startsWith("commit") ? [at] : []));
    expect(commits).toHaveLength(3);
    const answersBefore = (at: number) => events.slice(0, at).filter((e) => e.startsWith("answer")).length;
    expect(commits.map(answersBefore)).toEqual([0, 200, 400]);
    expect(answersBefore(events.length)).toBe(450);
  });

  it("fails every tick of a batch whose commit step failed, with its error, and goes on with the next batch", async () => {
    let calls = 0;
    const batcher = createTickBatcher({
      store: database.store,
      now: () => new Date(),
      maxBatch: 2,
      async committed() {
        if (++calls === 1) throw new Error("first batch failed");
      },
    });
    const outcomes = await Promise.allSettled(
      [1, 2, 3].map((i) => batcher.add({ triggerId: `gone:${i}`, millis: Date.now() })),
    );
    expect(outcomes.map((o) => o.status)).toEqual(["rejected", "rejected", "fulfilled"]);
    expect((outcomes[0] as PromiseRejectedResult).reason.message).toBe("first batch failed");
  });
});
