import { Agent, request } from "undici";
import type { ChatLog } from "../../bot/surfaces/chat/types";

/** Slack's documented host of the response_url it gives with a command or a click. */
const SLACK_RESPONSE_ORIGIN = "https://hooks.slack.com";

/** An answer through a command's or a click's response_url (Slack's message fields). */
export type Respond = (responseUrl: string, message: Record<string, unknown>) => Promise<void>;

/**
 * Answers through response_url, as Bolt's `respond()` does, with two differences:
 *
 * - Only to Slack: `hooks.slack.com`, or the origin of the configured Web API (SLACK_API_URL, a local
 *   Slack in tests). The URL comes inside the signed payload, so only someone holding the signing secret could
 *   change it, but every address the bot sends to comes from its configuration.
 * - Over kept-alive connections through undici's own request, not the global `fetch`: with 500 clicks at
 *   once, fetch's streams and a new connection for each answer were about a seventh of the main thread's
 *   time until the last note went out (bench/chat.ts).
 *
 * A URL elsewhere is not answered (one warning); an answer other than 2xx throws, as `respond()` did, so the
 * caller's fallbacks still run.
 */
export function slackResponder(apiUrl: string, log: ChatLog): { respond: Respond; close(): Promise<void> } {
  const allowed = new Set([SLACK_RESPONSE_ORIGIN, new URL(apiUrl).origin]);
  const dispatcher = new Agent({ keepAliveTimeout: 30_000 });
  return {
    async respond(responseUrl, message) {
      const url = URL.canParse(responseUrl) ? new URL(responseUrl) : null;
      if (!url || !allowed.has(url.origin)) {
        log.warn({ origin: url?.origin ?? null }, "slack answer not sent: response_url is not on Slack");
        return;
      }
      const answer = await request(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(message),
        dispatcher,
      });
      await answer.body.dump();
      if (answer.statusCode < 200 || answer.statusCode > 299) {
        throw new Error(`response_url answered ${answer.statusCode}`);
      }
    },
    close: () => dispatcher.close(),
  };
}
