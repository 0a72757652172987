import crypto from "node:crypto";
import type { ReadinessAnswer } from "../../../policy/resume-checklist";
import type { KnownAgent } from "../../../store/directory/directory";
import { agentPoster } from "../agent-webhook";
import type { HandlerContext } from "../context";

/** How long the agent has to answer the readiness call (design.md section 12). */
export const READINESS_TIMEOUT_MS = 5_000;

export interface LastCheckpoint {
  run: string;
  name: string;
  at: Date;
  vars: Record<string, unknown>;
}

const unsigned = agentPoster(new Map());

/**
 * Asks the agent, at its webhook and signed like every delivery, whether it stands where Holdfast recorded
 * it: `{ type: "holdfast.readiness", agent, lastCheckpoint }`. A refused connection, a timeout or a non-2xx
 * status is no answer; a 2xx body is handed to the policy as it parsed (null when it is not JSON).
 */
export async function askReadiness(
  ctx: HandlerContext,
  agent: KnownAgent,
  lastCheckpoint: LastCheckpoint | null,
): Promise<ReadinessAnswer> {
  if (!agent.webhook) return { kind: "no_webhook" };
  const body = JSON.stringify({
    type: "holdfast.readiness",
    agent: agent.name,
    lastCheckpoint: lastCheckpoint
      ? {
          name: lastCheckpoint.name,
          at: lastCheckpoint.at.toISOString(),
          vars: lastCheckpoint.vars,
          run: lastCheckpoint.run,
        }
      : null,
  });
  const signer = { agentId: agent.id, webhookId: `readiness_${crypto.randomUUID()}` };
  try {
    const answer = await (ctx.agentPost ?? unsigned)(agent.webhook, signer, body, READINESS_TIMEOUT_MS);
    if (answer.status < 200 || answer.status >= 300)
      return { kind: "no_answer", why: `it answered HTTP ${answer.status}` };
    return { kind: "answered", body: parsed(answer.text) };
  } catch (error) {
    ctx.log.warn({ agent: agent.id, err: (error as Error).message }, "readiness call got no answer");
    return { kind: "no_answer", why: noAnswerWords(error as Error) };
  }
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

const noAnswerWords = (error: Error & { code?: string }) =>
  error.name === "TimeoutError" || error.code === "UND_ERR_HEADERS_TIMEOUT" || error.code === "UND_ERR_BODY_TIMEOUT"
    ? `no answer within ${READINESS_TIMEOUT_MS / 1000} s`
    : `its webhook could not be reached: ${error.code ?? error.message}`;
