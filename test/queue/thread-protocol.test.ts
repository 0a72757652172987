import { describe, expect, it } from "vitest";
import { AnswerRecord, ResultRecord, SendRecord, TickRecord, TurnBatch } from "../../src/queue/threads/protocol.mjs";

describe("the thread message protocol", () => {
  it("decodes every record kind as it was encoded, several records to one message", () => {
    const ticks: unknown[] = [];
    TickRecord.encode(ticks, 1, { id: "repeat:t:1700000000000", data: { triggerId: "t" }, timestamp: 5, delay: 6 });
    TickRecord.encode(ticks, 2, { data: { triggerId: "u", dueAt: 42 }, timestamp: 7, delay: 0 });
    expect(ticks).toHaveLength(2 * TickRecord.width);
    expect(TickRecord.decode(ticks, 0)).toEqual({
      id: 1,
      triggerId: "t",
      dueAt: null,
      jobId: "repeat:t:1700000000000",
      timestamp: 5,
      delay: 6,
    });
    expect(TickRecord.decode(ticks, TickRecord.width)).toMatchObject({ id: 2, triggerId: "u", dueAt: 42, jobId: null });

    const answers: unknown[] = [];
    AnswerRecord.encode(answers, 3, null);
    AnswerRecord.encode(answers, 4, "boom");
    expect(AnswerRecord.decode(answers, AnswerRecord.width)).toEqual({ id: 4, error: "boom" });

    const sends: unknown[] = [];
    SendRecord.encode(sends, 5, "http://x/a", "{}", -1, "k1", { a: "1", b: "2" });
    SendRecord.encode(sends, 6, "http://x/b", "[]", 0, "k2", {});
    const first = SendRecord.decode(sends, 0);
    expect(first).toMatchObject({ id: 5, destination: "http://x/a", body: "{}", keyIndex: -1, webhookId: "k1" });
    expect(first.headers).toEqual(["a", "1", "b", "2"]);
    expect(SendRecord.decode(sends, first.next)).toMatchObject({ id: 6, keyIndex: 0, headers: [], next: sends.length });

    const results: unknown[] = [];
    ResultRecord.encode(results, 7, 0, "no answer");
    expect(ResultRecord.decode(results, 0)).toEqual({ id: 7, status: 0, error: "no answer" });
  });

  it("sends what one turn wrote as one message", async () => {
    const messages: unknown[][] = [];
    const batch = new TurnBatch<unknown>(queueMicrotask, (values) => messages.push(values));
    AnswerRecord.encode(batch.open(), 1, null);
    AnswerRecord.encode(batch.open(), 2, null);
    await Promise.resolve();
    AnswerRecord.encode(batch.open(), 3, null);
    await Promise.resolve();
    expect(messages).toEqual([
      [1, null, 2, null],
      [3, null],
    ]);
  });
});
