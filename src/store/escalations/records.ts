import type { EscalationKind, EscalationPolicy, EscalationState, LedgerEntry } from "../../policy/escalation";
import type { Db } from "../connection/client";

/** An escalation as stored, with its ledger. */
export interface StoredEscalation {
  id: string;
  itemKey: string;
  tenantId: string;
  agentId: string;
  kind: EscalationKind;
  subject: string;
  itemVersion: number;
  since: Date;
  policy: EscalationPolicy;
  targets: string[];
  state: EscalationState;
  level: number;
  lastSentAt: Date | null;
  acknowledgedBy: string | null;
  acknowledgedAt: Date | null;
  ackLevel: number | null;
  resolvedAt: Date | null;
  resolution: string | null;
  createdAt: Date;
}

export interface StoredStep extends LedgerEntry {
  notified: string[];
}

type Row = NonNullable<Awaited<ReturnType<Db["escalation"]["findUnique"]>>>;

export const toEscalation = (row: Row): StoredEscalation => ({
  ...row,
  kind: row.kind as EscalationKind,
  state: row.state as EscalationState,
  policy: JSON.parse(row.policy) as EscalationPolicy,
  targets: JSON.parse(row.targets) as string[],
});

export async function findEscalation(db: Db, id: string): Promise<StoredEscalation | null> {
  const row = await db.escalation.findUnique({ where: { id } });
  return row ? toEscalation(row) : null;
}

/** Every escalation not resolved yet: what each monitor tick looks at. */
export async function listActiveEscalations(db: Db): Promise<StoredEscalation[]> {
  const rows = await db.escalation.findMany({
    where: { state: { in: ["open", "acknowledged"] } },
    orderBy: { createdAt: "asc" },
  });
  return rows.map(toEscalation);
}

export async function listSteps(db: Db, escalationIds: readonly string[]): Promise<Map<string, StoredStep[]>> {
  const rows = await db.escalationStep.findMany({
    where: { escalationId: { in: [...escalationIds] } },
    orderBy: [{ level: "asc" }, { repeat: "asc" }],
  });
  const steps = new Map<string, StoredStep[]>();
  for (const row of rows) {
    const list = steps.get(row.escalationId) ?? [];
    list.push({ level: row.level, repeat: row.repeat, sentAt: row.sentAt, notified: JSON.parse(row.notified) });
    steps.set(row.escalationId, list);
  }
  return steps;
}
