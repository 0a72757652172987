import { effectiveRole } from "../../policy/roles";
import type { KnownUser } from "../../store/directory";
import { findAgentById, standingOf } from "../../store/directory";
import { findOutboxItem } from "../../store/outbox";
import { type Resolution, reconcileItem } from "../../store/outbox-review";
import type { HandlerContext } from "../context";
import { type DeliveryView, deliveryView } from "./run-view";

export interface ReconcileCommand {
  user: KnownUser;
  key: string;
  resolution: Resolution;
  note: string;
}

export type ReconcileResult =
  | { kind: "reconciled"; item: DeliveryView }
  | { kind: "not_found" }
  | { kind: "forbidden" }
  | { kind: "not_needs_review" };

/** A person settles an effect whose outcome was unknown. Only the agent's principal or an admin may. */
export async function reconcileOutbox(ctx: HandlerContext, command: ReconcileCommand): Promise<ReconcileResult> {
  const { db } = ctx.store;
  const item = await findOutboxItem(db, command.key);
  if (!item || item.tenantId !== command.user.tenantId) return { kind: "not_found" };
  const agent = await findAgentById(db, item.agentId);
  if (!agent) return { kind: "not_found" };
  const role = effectiveRole(await standingOf(db, command.user, agent));
  if (role !== "principal" && role !== "admin") return { kind: "forbidden" };
  if (item.state !== "NEEDS_REVIEW") return { kind: "not_needs_review" };
  const done = await reconcileItem(db, { ...command, item, actorId: command.user.id, at: ctx.now() });
  if (!done) return { kind: "not_needs_review" };
  ctx.log.info({ key: item.id, actor: command.user.id, resolution: command.resolution }, "outbox item reconciled");
  if (command.resolution === "retry") ctx.events.emit("outbox.planned");
  if (item.runId) ctx.events.emit("run.changed", item.runId);
  return { kind: "reconciled", item: deliveryView((await findOutboxItem(db, item.id))!, true) }; // principal or admin
}
