import { parentPort, workerData } from "node:worker_threads";
import { slackArgs, startSlackFake } from "../test/fakes/slack-fake";

// The fake Slack of bench/chat.ts on a thread of its own (bench/slack-thread.ts): answers the bot's Web API
// calls and notes, and records when each note arrived.

const slack = await startSlackFake({ teamId: (workerData as { teamId: string }).teamId });
const notedAt = new Map<string, number>();
slack.respond(/^\/response\//, (call) => {
  notedAt.set(call.path.slice("/response/".length), performance.timeOrigin + performance.now());
  return { body: { ok: true } };
});

type Ask =
  | { id: number; ask: "blocks" | "updates" | "close" }
  | { id: number; ask: "notes" | "noteCount"; prefix: string };

const answer = async (message: Ask): Promise<unknown> => {
  switch (message.ask) {
    case "blocks":
      return slack.callsTo("chat.postMessage").map((call) => String(slackArgs(call).blocks));
    case "updates":
      return slack.callsTo("chat.update").length;
    case "notes":
      return [...notedAt].filter(([id]) => id.startsWith(message.prefix));
    case "noteCount":
      return [...notedAt.keys()].filter((id) => id.startsWith(message.prefix)).length;
    case "close":
      await slack.close();
      return null;
  }
};

parentPort!.on("message", (message: Ask) => {
  void answer(message).then((value) => parentPort!.postMessage({ id: message.id, value }));
});
parentPort!.postMessage({ id: 0, value: { apiUrl: slack.apiUrl, responseBase: slack.responseUrl("") } });
