import type { ControlRecord, ControlState, HoldLevel } from "../policy/control";
import type { Store } from "./client";
import { readControlsSqlite } from "./outbox-sqlite";

/** Many control records in one indexed read (the gate for a batch of work). */
export async function readControlScopes(store: Store, scopes: string[]): Promise<Map<string, ControlRecord>> {
  if (store.sqlite) return readControlsSqlite(store.sqlite, scopes);
  const rows = await store.db.control.findMany({ where: { scope: { in: [...new Set(scopes)] } } });
  return new Map(
    rows.map((r) => [
      r.scope,
      { ...r, state: r.state as ControlState, holdLevel: r.holdLevel as HoldLevel } satisfies ControlRecord,
    ]),
  );
}
