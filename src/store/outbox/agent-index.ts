import { OUTBOX_AGENT_INDEXED, sqlList } from "../../policy/states";
import type { Dialect } from "../connection/sql";

/**
 * The condition of the `(agentId, state)` index, which holds only rows in OUTBOX_AGENT_INDEXED's states. A read
 * of one agent's items (or a few agents') adds it beside its own condition on the state, which asks for
 * states among those: SQLite uses a partial index only for a query that repeats its condition word for word.
 */
export const AGENT_INDEXED = `"state" IN ${sqlList(OUTBOX_AGENT_INDEXED)}`;

/**
 * The outbox, read through that index: `FROM ${agentOutbox(d)} WHERE "agentId" ... AND ${AGENT_INDEXED}`. On
 * SQLite such a read that leaves out the condition fails, where it would have read every agent's open rows.
 */
export const agentOutbox = (d: Dialect) => `"OutboxItem"${d.indexedBy("OutboxItem_agentId_state_idx")}`;
