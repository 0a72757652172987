import { type RunReader, seesDeliveryDetail, seesPacket, standingToward } from "../../../policy/access";
import type { RunRecord } from "../../../store/approvals/runs";
import type { KnownAgent, KnownUser } from "../../../store/directory/directory";
import { tenantStandingOf } from "../auth/standing";
import type { HandlerContext } from "../context";
import { findTenantRun } from "./run-ids";
import { type RunView, runView } from "./run-view";

/** Who asks for a run: its agent (the agent's key) or one of the tenant's users. */
export type RunAsker = { kind: "agent"; agent: KnownAgent } | { kind: "user"; user: KnownUser };

export interface RunAsRead {
  run: RunRecord;
  view: RunView;
  /** The packet (with its evidence), only when the asker may see it (policy/access.ts `seesPacket`). */
  packet?: unknown;
}

/**
 * One run as a reader may see it, for the API and the console alike: another tenant's run, or another
 * agent's for an agent key, is not found; the packet only for those who see packets; the delivery's full
 * result only for those who see delivery detail.
 */
export async function readRun(ctx: HandlerContext, asker: RunAsker, id: string): Promise<RunAsRead | null> {
  const { db } = ctx.store;
  const tenantId = asker.kind === "agent" ? asker.agent.tenantId : asker.user.tenantId;
  const run = await findTenantRun(db, tenantId, id);
  if (!run || (asker.kind === "agent" && run.agentId !== asker.agent.id)) return null;
  const reader: RunReader =
    asker.kind === "agent"
      ? { kind: "agent", agentId: asker.agent.id }
      : {
          kind: "user",
          userId: asker.user.id,
          standing: standingToward(await tenantStandingOf(ctx.store, asker.user), run.agentId),
        };
  const view = await runView(ctx.store, run, reader.kind === "user" && seesDeliveryDetail(reader.standing));
  if (view.kind !== "approval" || !seesPacket(reader, run)) return { run, view };
  return { run, view, packet: JSON.parse(run.packet) };
}
