import crypto from "node:crypto";
import { canonicalJson } from "../../../policy/canonical-json";
import { packetDigest } from "../../../policy/digest";
import { runKey } from "../../../policy/ids";
import { createRun, findFirstPacket, findRun } from "../../../store/approvals/runs";
import type { KnownAgent } from "../../../store/directory/directory";
import { configuredReviewers } from "../../../store/directory/reviewers";
import type { HandlerContext } from "../context";
import { checkpointsOf } from "../held/receive-event";
import { destinationContract } from "./destinations";
import { type ApprovalRunView, approvalRunView } from "./run-view";

export interface CreateRunCommand {
  agent: KnownAgent;
  id?: string;
  operation: string;
  destination: string;
  packet: unknown;
  /** User names among the agent's configured reviewers; absent: all of them. */
  reviewers?: string[];
  deadline: Date;
  escalateAfterSeconds?: number;
  checkpoint?: string;
}

export type CreateRunResult =
  | { kind: "created"; run: ApprovalRunView }
  | { kind: "exists" }
  | { kind: "already_created"; run: ApprovalRunView }
  | { kind: "invalid"; field: string; message: string };

/** Creates a run waiting for approval at version 1, its packet digested in canonical JSON. */
export async function createRunForAgent(ctx: HandlerContext, command: CreateRunCommand): Promise<CreateRunResult> {
  const { db } = ctx.store;
  const { agent } = command;
  if (!destinationContract(agent, command.destination)) {
    return { kind: "invalid", field: "destination", message: `destination is not declared for agent ${agent.name}` };
  }
  // Reviewers come from the directory: a run may narrow the configured list, never widen it (design.md 11).
  const configured = await configuredReviewers(db, agent.id);
  const names = command.reviewers ?? configured.map((u) => u.name);
  const outside = names.filter((name) => !configured.some((u) => u.name === name));
  if (outside.length) {
    const message = `not a configured reviewer of ${agent.name}: ${outside.join(", ")}`;
    return { kind: "invalid", field: "reviewers", message };
  }
  if (names.length === 0) {
    return { kind: "invalid", field: "reviewers", message: `agent ${agent.name} has no reviewers configured` };
  }
  if (command.checkpoint !== undefined && !checkpointsOf(agent).includes(command.checkpoint)) {
    const declared = checkpointsOf(agent);
    const message = declared.length
      ? `'${command.checkpoint}' is not one of ${agent.name}'s checkpoints (${declared.join(", ")})`
      : `${agent.name} declares no checkpoints`;
    return { kind: "invalid", field: "checkpoint", message };
  }
  if (command.deadline.getTime() <= ctx.now().getTime()) {
    return { kind: "invalid", field: "deadline", message: "deadline must be in the future" };
  }
  const id = runKey(agent.tenantId, command.id ?? crypto.randomUUID());
  const created = await createRun(db, {
    id,
    tenantId: agent.tenantId,
    agentId: agent.id,
    operation: command.operation,
    destination: command.destination,
    packet: canonicalJson(command.packet),
    digest: packetDigest(command.packet),
    checkpoint: command.checkpoint ?? null,
    deadline: command.deadline,
    escalateAfterSeconds: command.escalateAfterSeconds ?? null,
    reviewers: [...new Set(names)].map((name) => configured.find((u) => u.name === name)!.id),
  });
  if (created === "exists") {
    // An agent retrying the same create (say after a timeout) gets the run back; anything else is a conflict.
    const existing = await findRun(db, id);
    const first = existing && (await findFirstPacket(db, id));
    if (existing?.agentId === agent.id && first?.digest === packetDigest(command.packet)) {
      ctx.metrics?.duplicateSuppressed("run_create");
      return { kind: "already_created", run: await approvalRunView(ctx.store, existing) };
    }
    return { kind: "exists" };
  }
  ctx.log.info({ run: id, agent: agent.id }, "run created");
  ctx.events.emit("run.changed", id);
  return { kind: "created", run: await approvalRunView(ctx.store, (await findRun(db, id))!) };
}
