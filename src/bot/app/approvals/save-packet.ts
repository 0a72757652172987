import { canonicalJson } from "../../../policy/canonical-json";
import { packetDigest } from "../../../policy/digest";
import { findRun, saveNewPacket } from "../../../store/approvals/runs";
import type { KnownAgent } from "../../../store/directory/directory";
import type { HandlerContext } from "../context";
import { waitedSeconds } from "./run-ids";
import { type ApprovalRunView, approvalRunView } from "./run-view";

export type SavePacketResult =
  | { kind: "saved" | "unchanged"; run: ApprovalRunView }
  | { kind: "not_found" }
  | { kind: "stale" }
  | { kind: "invalid_state" };

export interface SavePacketCommand {
  agent: KnownAgent;
  runId: string;
  packet: unknown;
  /** The version the agent changed; when given and no longer current, the save is `stale`. */
  version?: number;
  deadline?: Date;
}

/**
 * A changed packet is a new version with a new digest and a new approval request; decisions carrying
 * the earlier version are then `stale`. Only a run still waiting can take a new packet. The same packet
 * again changes nothing, so an agent's retried save never bumps the version twice.
 */
export async function savePacket(ctx: HandlerContext, command: SavePacketCommand): Promise<SavePacketResult> {
  const { db } = ctx.store;
  const run = await findRun(db, command.runId);
  if (!run || run.agentId !== command.agent.id) return { kind: "not_found" };
  if (command.version !== undefined && command.version !== run.version) return { kind: "stale" };
  if (run.state !== "waiting") return { kind: "invalid_state" };
  const digest = packetDigest(command.packet);
  if (digest === run.digest && !command.deadline)
    return { kind: "unchanged", run: await approvalRunView(ctx.store, run) };
  const saved = await saveNewPacket(db, {
    runId: run.id,
    fromVersion: run.version,
    packet: canonicalJson(command.packet),
    digest,
    deadline: command.deadline,
  });
  if (!saved) return { kind: "stale" }; // a decision or another save moved the run on meanwhile
  ctx.log.info({ run: run.id, version: run.version + 1 }, "packet saved");
  ctx.metrics?.approvalResolved("superseded", waitedSeconds(run, ctx.now()));
  ctx.events.emit("run.changed", run.id);
  return { kind: "saved", run: await approvalRunView(ctx.store, (await findRun(db, run.id))!) };
}
