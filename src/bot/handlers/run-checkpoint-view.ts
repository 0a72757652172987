import type { Db } from "../../store/client";
import { readRunCheckpoint } from "../../store/runs-checkpoint";

/** The checkpoint part of GET /v1/runs/:id: where the run is, read from the record, never from history. */
export interface RunCheckpointView {
  id: string;
  agent: string;
  state: string;
  checkpoint: string | null;
  vars: Record<string, unknown>;
  updatedAt: string;
}

/** null when the run does not exist or belongs to another tenant (the caller sees a 404 either way). */
export async function runCheckpointView(db: Db, runId: string, tenantId: string): Promise<RunCheckpointView | null> {
  const run = await readRunCheckpoint(db, runId);
  if (!run || run.tenantId !== tenantId) return null;
  return {
    id: run.id,
    agent: run.agentId.slice(tenantId.length + 1),
    state: run.state,
    checkpoint: run.checkpoint,
    vars: run.vars,
    updatedAt: run.updatedAt.toISOString(),
  };
}
