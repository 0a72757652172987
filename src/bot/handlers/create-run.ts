import crypto from "node:crypto";
import { canonicalJson, packetDigest } from "../../policy/digest";
import { runKey } from "../../policy/run-ids";
import type { KnownAgent } from "../../store/directory";
import { createRun, findFirstPacket, findRun } from "../../store/runs";
import { findTenantUsers } from "../../store/users";
import type { HandlerContext } from "../context";
import { destinationContract } from "./destinations";
import { type RunView, runView } from "./run-view";

export interface CreateRunCommand {
  agent: KnownAgent;
  id?: string;
  operation: string;
  destination: string;
  packet: unknown;
  /** User names of the agent's tenant. */
  reviewers: string[];
  deadline: Date;
  escalateAfterSeconds?: number;
  checkpoint?: string;
}

export type CreateRunResult =
  | { kind: "created"; run: RunView }
  | { kind: "exists" }
  | { kind: "already_created"; run: RunView }
  | { kind: "invalid"; field: string; message: string };

/** Creates a run waiting for approval at version 1, its packet digested in canonical JSON. */
export async function createRunForAgent(ctx: HandlerContext, command: CreateRunCommand): Promise<CreateRunResult> {
  const { db } = ctx.store;
  const { agent } = command;
  if (!destinationContract(agent, command.destination)) {
    return { kind: "invalid", field: "destination", message: `destination is not declared for agent ${agent.name}` };
  }
  const reviewers = await findTenantUsers(db, agent.tenantId, command.reviewers);
  const unknown = command.reviewers.filter((name) => !reviewers.some((u) => u.name === name));
  if (unknown.length) return { kind: "invalid", field: "reviewers", message: `unknown user(s): ${unknown.join(", ")}` };
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
    checkpoint: command.checkpoint ?? "awaiting-approval",
    deadline: command.deadline,
    escalateAfterSeconds: command.escalateAfterSeconds ?? null,
    reviewers: command.reviewers.map((name) => reviewers.find((u) => u.name === name)!.id),
  });
  if (created === "exists") {
    // An agent retrying the same create (say after a timeout) gets the run back; anything else is a conflict.
    const existing = await findRun(db, id);
    const first = existing && (await findFirstPacket(db, id));
    if (existing?.agentId === agent.id && first?.digest === packetDigest(command.packet))
      return { kind: "already_created", run: await runView(db, existing) };
    return { kind: "exists" };
  }
  ctx.log.info({ run: id, agent: agent.id }, "run created");
  ctx.events.emit("run.changed", id);
  return { kind: "created", run: await runView(db, (await findRun(db, id))!) };
}
