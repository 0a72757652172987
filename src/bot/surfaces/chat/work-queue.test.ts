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

  it("holds work while more keeps arriving, but no longer than maxDelayMs", async () => {
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const quiet = createWorkQueue({ quietMs: 40, maxDelayMs: 10_000 });
    const startedAt: number[] = [];
    const t0 = Date.now();
    const burst = [0, 1, 2].map(async (n) => {
      await sleep(n * 15); // three arrivals, 15 ms apart: a burst
      return quiet.run(async () => startedAt.push(Date.now() - t0));
    });
    await Promise.all(burst);
    expect(Math.min(...startedAt)).toBeGreaterThanOrEqual(30 + 40 - 5); // after the last arrival plus the quiet time

    const capped = createWorkQueue({ quietMs: 1_000, maxDelayMs: 30 });
    const t1 = Date.now();
    let firstStart = 0;
    const stream = capped.run(async () => {
      firstStart = Date.now() - t1;
    });
    for (let i = 0; i < 8; i++) {
      await sleep(10);
      void capped.run(async () => {});
    }
    await stream;
    expect(firstStart).toBeLessThan(1_000);
  });

  it("says when nothing is waiting or running", async () => {
    const queue = createWorkQueue({ concurrency: 1, quietMs: 0 });
    let idleNow = false;
    await queue.idle().then(() => {
      idleNow = true;
    });
    expect(idleNow).toBe(true);

    const order: string[] = [];
    let release!: () => void;
    const first = queue.run(() => new Promise<void>((resolve) => (release = resolve)).then(() => order.push("first")));
    const second = queue.run(async () => order.push("second"));
    const idle = queue.idle().then(() => order.push("idle"));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(order).toEqual([]); // the first still runs, the second waits
    release();
    await Promise.all([first, second, idle]);
    expect(order).toEqual(["first", "second", "idle"]);
  });

  it("refuses a concurrency that is not a positive integer", () => {
    expect(() => createWorkQueue({ concurrency: 0 })).toThrow("positive integer");
  });
});
