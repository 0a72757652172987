import type { ControlRecord, ControlState, HoldLevel } from "../policy/control";
import type { Db } from "./client";

/** Many control records in one indexed read (the gate for a batch of work). */
export async function readControlScopes(db: Db, scopes: string[]): Promise<Map<string, ControlRecord>> {
  const rows = await db.control.findMany({ where: { scope: { in: [...new Set(scopes)] } } });
  return new Map(
    rows.map((r) => [
      r.scope,
      { ...r, state: r.state as ControlState, holdLevel: r.holdLevel as HoldLevel } satisfies ControlRecord,
    ]),
  );
}
