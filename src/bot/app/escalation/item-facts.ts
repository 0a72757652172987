import { agentScope, runName } from "../../../policy/ids";
import { findRun } from "../../../store/approvals/runs";
import type { Db } from "../../../store/connection/client";
import { readControl } from "../../../store/control/change";
import type { KnownAgent } from "../../../store/directory/directory";
import { userNames } from "../../../store/directory/users";
import type { StoredEscalation } from "../../../store/escalations/records";
import { countHeldWork } from "../../../store/held/counts";
import { findOutboxItem } from "../../../store/outbox/marks";
import { shortDigest } from "../../surfaces/chat/approval-card";
import { when } from "../../surfaces/chat/words";

/** What a ping says about its item: what waits, on whom, and where to open it (a path under the public URL). */
export interface ItemFacts {
  what: string;
  onWhom: string[];
  fields: Array<{ label: string; value: string }>;
  openPath: string;
}

type Item = Pick<StoredEscalation, "kind" | "subject" | "tenantId">;

const names = async (db: Db, ids: readonly string[]) => {
  const map = await userNames(db, ids);
  return ids.map((id) => map.get(id) ?? id);
};

/** Reads the item's facts now; null when it no longer exists. Agent-supplied values are escaped by the adapters. */
export async function itemFacts(db: Db, item: Item, agent: KnownAgent): Promise<ItemFacts | null> {
  switch (item.kind) {
    case "approval": {
      const run = await findRun(db, item.subject);
      if (!run) return null;
      const id = runName(run.tenantId, run.id);
      return {
        what: `Approval of ${run.operation} (run ${id}, version ${run.version})`,
        onWhom: await names(db, run.reviewers),
        fields: [
          { label: "Run", value: id },
          { label: "Operation", value: run.operation },
          { label: "Digest", value: shortDigest(run.digest) },
        ],
        openPath: `/approvals#${encodeURIComponent(id)}`, // the console's approval, with its packet and buttons
      };
    }
    case "paused": {
      const control = await readControl(db, agentScope(agent.id));
      if (!control) return null;
      const held = await countHeldWork(db, agent.id);
      const waiting = await db.run.count({ where: { agentId: agent.id, state: "waiting" } });
      return {
        what: `Agent ${agent.name} is paused${control.reason ? ` (${control.reason})` : ""}`,
        onWhom: await names(db, agent.principalId ? [agent.principalId] : []),
        fields: [
          { label: "Waiting runs", value: String(waiting) },
          { label: "Held triggers", value: String(held.occurrences) },
          { label: "Held events", value: String(held.inboundEvents) },
          { label: "Held actions", value: String(held.outboxActions) },
          { label: "Needs review", value: String(held.needsReview) },
        ],
        openPath: `/agents/${encodeURIComponent(agent.name)}`, // the console's agent page: its hold and held work
      };
    }
    case "review":
    case "delivery":
      return outboxFacts(db, item, agent);
  }
}

async function outboxFacts(db: Db, item: Item, agent: KnownAgent): Promise<ItemFacts | null> {
  const outbox = await findOutboxItem(db, item.subject);
  if (!outbox) return null;
  const run = outbox.runId ? await findRun(db, outbox.runId) : null;
  const approver = run?.decidedBy ? (await names(db, [run.decidedBy]))[0]! : "none";
  const principal = await names(db, agent.principalId ? [agent.principalId] : []);
  const known = `${outbox.lastAttemptAt ? when(outbox.lastAttemptAt) : "never attempted"}: ${outbox.lastResult ?? "no result"}`;
  const review = item.kind === "review";
  return {
    what: review ? `Delivery ${outbox.id} needs review` : `Delivery ${outbox.id} is not delivered (${outbox.state})`,
    onWhom: principal,
    fields: [
      // Intended: what was approved; known: what the last attempt saw; next: what each resolution does.
      {
        label: "Intended",
        value: `${outbox.digest ? shortDigest(outbox.digest) : "no digest"}, run ${run ? runName(run.tenantId, run.id) : "none"}, approved by ${approver}`,
      },
      { label: "Known", value: `${known}; to ${outbox.destination}; key ${outbox.id}` },
      {
        label: "Next",
        value: review
          ? "delivered: mark done, nothing sent; retry: send again with the same key; abandon: never send"
          : `attempt ${outbox.attempts + 1} at ${when(outbox.nextAttemptAt)}`,
      },
    ],
    openPath: review ? "/review" : `/agents/${encodeURIComponent(agent.name)}`, // the console: three facts, or held work
  };
}

/** The settled card's footer: how the item ended, e.g. "Resolved: approved by rita at 2026-12-03 10:00 UTC". */
export async function resolutionText(db: Db, item: Item & { itemVersion: number }, now: Date): Promise<string> {
  if (item.kind === "approval") {
    const run = await findRun(db, item.subject);
    if (!run) return `Resolved: the run no longer exists (${when(now)})`;
    if (run.state === "waiting") return `Resolved: superseded by version ${run.version} at ${when(now)}`;
    const by = run.decidedBy ? ` by ${(await names(db, [run.decidedBy]))[0]}` : "";
    return `Resolved: ${run.state}${by} at ${when(run.decidedAt ?? now)}`;
  }
  if (item.kind === "paused") return `Resolved: the agent runs again or has nothing waiting (${when(now)})`;
  const outbox = await findOutboxItem(db, item.subject);
  if (!outbox) return `Resolved: the delivery no longer exists (${when(now)})`;
  return `Resolved: ${outbox.state.toLowerCase().replace("_", " ")} at ${when(now)}`;
}
