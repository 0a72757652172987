import { Worker } from "node:worker_threads";
import { Agent, request } from "undici";
import type { AttemptOutcome } from "../../policy/delivery";
import { classifyResponse } from "../../policy/delivery";
import { HEADER_SAFE_RULE, isHeaderSafe } from "../../policy/header-ids";
import type { OutboxItem } from "../../store/outbox/types";
import { THREAD_RESOURCE_LIMITS } from "../thread-limits";
import { ResultRecord, SendRecord, TurnBatch } from "../threads/protocol.mjs";
import { guardedLookup, sendTimeRefusal } from "./guarded-lookup.mjs";

/** Agent id -> its Standard Webhooks key (the decoded `whsec_` secret). Agents not in it send unsigned. */
export type SigningKeys = ReadonlyMap<string, Buffer>;

export type LookupAnswer = "present" | "absent" | "unknown";

/** How deliveries leave the process; tests inject their own to drop responses or count calls. */
export interface DeliveryTransport {
  send(item: OutboxItem, attemptId: string): Promise<AttemptOutcome>;
  lookup(lookupUrl: string, key: string): Promise<LookupAnswer>;
  /** Frees what the transport holds (its thread); sends after this start it again. */
  close?(): Promise<void>;
}

/**
 * `status` is the answer's, or on an error 0 (sent, no answer), -1 (not sent) or -2 (can never be sent: an
 * unparsable URL, or an address the rule refuses).
 */
interface PostResult {
  status: number;
  error?: string;
}

/**
 * A thread with nothing to send for this long ends, and the next send starts another: an idle thread holds
 * about 10 MB (its own V8 heap), and starting one costs tens of milliseconds, once per burst. Shorter than
 * any cadence that matters: at 30 s, the example directory's 30-s demo heartbeat kept the thread alive
 * forever, and an idle process held 134-143 MiB instead of 124-128 (bench/process.ts).
 */
const THREAD_IDLE_MS = 5_000;

/**
 * The POSTs run on a worker thread (http-thread.worker.mjs), so their HTTP work does not share the event loop
 * with the database and BullMQ work of the delivery step (bench/held.ts). Sends made in the same turn go
 * over as one message (threads/protocol.mjs). If the thread dies, what it had in flight is uncertain, and the next send starts a
 * new one.
 */
function postThread(timeoutMs: number, signing: SigningKeys, idleMs: number) {
  // The keys go to the thread once, at its start; each send names its key by index.
  const keyIndex = new Map([...signing.keys()].map((agentId, i) => [agentId, i]));
  const signingKeys = [...signing.values()].map((key) => new Uint8Array(key));
  let worker: Worker | null = null;
  let nextId = 0;
  const waiting = new Map<number, (result: PostResult) => void>();
  // Sends made in one turn go over as one message (threads/protocol.mjs), starting the thread if it is gone.
  const outgoing = new TurnBatch<unknown>(queueMicrotask, (sends) => {
    worker ??= start();
    worker.postMessage(sends);
  });
  let idle: NodeJS.Timeout | null = null;
  const endWhenIdle = () => {
    if (idle) clearTimeout(idle);
    idle = null;
    if (waiting.size > 0 || !worker) return;
    idle = setTimeout(() => {
      idle = null;
      if (waiting.size > 0 || !worker) return;
      const thread = worker;
      worker = null;
      void thread.terminate();
    }, idleMs);
    idle.unref();
  };

  const start = () => {
    const thread = new Worker(new URL("./http-thread.worker.mjs", import.meta.url), {
      workerData: { timeoutMs, signingKeys },
      resourceLimits: THREAD_RESOURCE_LIMITS,
    });
    thread.unref(); // an idle delivery thread never keeps the process alive
    thread.on("message", (results: unknown[]) => {
      for (let i = 0; i < results.length; i += ResultRecord.width) {
        const { id, status, error } = ResultRecord.decode(results, i);
        waiting.get(id)?.(error === null ? { status } : { status, error });
        waiting.delete(id);
      }
      endWhenIdle();
    });
    const lost = (why: string) => {
      // A thread ended for idleness is no longer the current one, and what waits now is another thread's.
      if (worker !== thread) return;
      worker = null;
      for (const resolve of waiting.values()) resolve({ status: 0, error: `delivery thread stopped: ${why}` });
      waiting.clear();
    };
    thread.on("error", (error) => lost(error.message));
    thread.on("exit", (code) => lost(`exit ${code}`));
    return thread;
  };

  return {
    post(
      destination: string,
      body: string,
      headers: Record<string, string>,
      signer: { agentId: string; webhookId: string },
    ): Promise<PostResult> {
      const id = nextId++;
      const keyAt = keyIndex.get(signer.agentId) ?? -1;
      SendRecord.encode(outgoing.open(), id, destination, body, keyAt, signer.webhookId, headers);
      if (idle) clearTimeout(idle);
      idle = null;
      return new Promise((resolve) => waiting.set(id, resolve));
    },
    /** Whether a thread is running now (it ends after `idleMs` with nothing to send). */
    running: () => worker !== null,
    async close() {
      if (idle) clearTimeout(idle);
      await worker?.terminate();
      worker = null;
    },
  };
}

/** The outcome class of a POST's result (policy/delivery.ts): answered, sent without an answer, or not sent. */
export function outcomeOf(result: PostResult): AttemptOutcome {
  if (result.error === undefined) return classifyResponse(result.status);
  if (result.status < 0)
    return { kind: "not_sent", error: result.error, ...(result.status === -2 ? { permanent: true } : {}) };
  return { kind: "uncertain", error: result.error };
}

/** A key stored before the doors checked it, which no header can carry: never sent, settled by a person. */
const UNSENDABLE_KEY: AttemptOutcome = {
  kind: "not_sent",
  error: `its key cannot be sent as an Idempotency-Key (${HEADER_SAFE_RULE})`,
  permanent: true,
  review: true,
};

/**
 * POSTs the payload as JSON with the item's key as `Idempotency-Key` on every attempt, signed with the
 * agent's key when it has one (Standard Webhooks, `webhook-id` = the item's key). A timeout, or a
 * connection broken once the request was written, is `uncertain`: the destination may have applied the
 * effect. An error before the request was written in full is `not_sent`; an address the rule refuses (a
 * hostname resolving to a link-local or metadata address) is never connected to: `not_sent`, permanent. An
 * item whose key a header cannot carry is never sent either, and needs a person's review at once.
 */
export function httpTransport(
  timeoutMs = 10_000,
  signing: SigningKeys = new Map(),
  idleMs = THREAD_IDLE_MS,
): DeliveryTransport & { threadRunning(): boolean } {
  const thread = postThread(timeoutMs, signing, idleMs);
  // Made on the first lookup and dropped on close: like the thread, a later use starts it again.
  let lookups: Agent | null = null;
  return {
    async send(item, attemptId) {
      if (!isHeaderSafe(item.id)) return UNSENDABLE_KEY;
      const result = await thread.post(
        item.destination,
        item.payload,
        {
          "content-type": "application/json",
          "idempotency-key": item.id,
          "x-holdfast-attempt": attemptId,
          "x-holdfast-kind": item.kind,
        },
        { agentId: item.agentId, webhookId: item.id },
      );
      return outcomeOf(result);
    },
    threadRunning: thread.running,
    close: async () => {
      await thread.close();
      await lookups?.close();
      lookups = null;
    },
    async lookup(lookupUrl, key) {
      if (sendTimeRefusal(lookupUrl)) return "unknown";
      try {
        const url = new URL(lookupUrl);
        url.searchParams.set("key", key);
        lookups ??= new Agent({ connect: { lookup: guardedLookup } });
        const response = await request(url, {
          dispatcher: lookups,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
          signal: AbortSignal.timeout(timeoutMs),
        });
        await response.body.dump();
        if (response.statusCode === 200) return "present";
        if (response.statusCode === 404) return "absent";
        return "unknown";
      } catch {
        return "unknown";
      }
    },
  };
}
