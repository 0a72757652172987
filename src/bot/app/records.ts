// The records the use cases hand to the surfaces. They are the store's row shapes, named here so that a surface
// can type what it renders without importing the store (test/architecture/layers.test.ts).

export type { DecisionFacts } from "../../store/approvals/decisions";
export type { RunRecord, WaitingRun } from "../../store/approvals/runs";
export type { StoredButton } from "../../store/chat/buttons";
export type { KnownAgent, KnownUser } from "../../store/directory/directory";
export type { HeldCounts } from "../../store/held/counts";
export type { OutboxItem } from "../../store/outbox/types";
