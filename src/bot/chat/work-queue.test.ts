import { describe, expect, it } from "vitest";
import { createWorkQueue } from "./work-queue";

describe("work queue", () => {
  it("runs at most `concurrency` pieces at once, in order, and passes results and errors through", async () => {
    const queue = createWorkQueue({ concurrency: 2 });
    let running = 0;
    let most = 0;
    const started: number[] = [];
    const job = (n: number) => async () => {
      started.push(n);
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running--;
      if (n === 3) throw new Error("three");
      return n * 10;
    };
    const results = await Promise.allSettled([1, 2, 3, 4, 5].map((n) => queue.run(job(n))));
    expect(most).toBe(2);
    expect(started).toEqual([1, 2, 3, 4, 5]);
    expect(results.map((r) => (r.status === "fulfilled" ? r.value : (r.reason as Error).message))).toEqual([
      10,
      20,
      "three",
      40,
      50,
    ]);
  });

  it("refuses a concurrency that is not a positive integer", () => {
    expect(() => createWorkQueue({ concurrency: 0 })).toThrow("positive integer");
  });
});
