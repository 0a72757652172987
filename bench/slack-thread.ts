import { Worker } from "node:worker_threads";

/**
 * The fake Slack (test/fakes/slack-fake.ts) on a thread of its own, as Slack is another machine: receiving
 * 500 notes and the card edits on the bot's own event loop cost the bot about a tenth of its time in a
 * burst (bench/chat.ts). The bench asks it what it received.
 */
export interface SlackThread {
  /** Pass as the bot's SLACK_API_URL. */
  apiUrl: string;
  /** A response_url on this Slack. */
  responseUrl(id: string): string;
  /** The blocks of every chat.postMessage received so far. */
  postedBlocks(): Promise<string[]>;
  /** How many chat.update calls were received so far. */
  updates(): Promise<number>;
  /** When each note (a POST to a response_url) whose id starts with `prefix` arrived, wall clock, by id. */
  notes(prefix: string): Promise<Map<string, number>>;
  /** How many such notes arrived so far. */
  noteCount(prefix: string): Promise<number>;
  close(): Promise<void>;
}

export async function startSlackThread(teamId: string): Promise<SlackThread> {
  const file = new URL("./slack-thread.worker.ts", import.meta.url).href;
  // The thread loads TypeScript through tsx's API: a worker does not inherit the loader `tsx` gave this thread.
  const worker = new Worker(
    `import("tsx/esm/api").then(({ tsImport }) => tsImport(${JSON.stringify(file)}, ${JSON.stringify(import.meta.url)}));`,
    { eval: true, workerData: { teamId } },
  );
  const pending = new Map<number, (value: unknown) => void>();
  let next = 1;
  const ready = new Promise<{ apiUrl: string; responseBase: string }>((resolve, reject) => {
    pending.set(0, resolve as (value: unknown) => void);
    worker.once("error", reject);
  });
  worker.on("message", ({ id, value }: { id: number; value: unknown }) => {
    pending.get(id)?.(value);
    pending.delete(id);
  });
  const ask = <T>(message: Record<string, unknown>): Promise<T> =>
    new Promise((resolve) => {
      const id = next++;
      pending.set(id, resolve as (value: unknown) => void);
      worker.postMessage({ id, ...message });
    });
  const { apiUrl, responseBase } = await ready;
  return {
    apiUrl,
    responseUrl: (id) => `${responseBase.replace(/\/$/, "")}/${id}`,
    postedBlocks: () => ask<string[]>({ ask: "blocks" }),
    updates: () => ask<number>({ ask: "updates" }),
    notes: async (prefix) => new Map(await ask<Array<[string, number]>>({ ask: "notes", prefix })),
    noteCount: (prefix) => ask<number>({ ask: "noteCount", prefix }),
    async close() {
      await ask({ ask: "close" });
      await worker.terminate();
    },
  };
}
