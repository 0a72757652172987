-- DropIndex
DROP INDEX "OutboxItem_agentId_state_idx";

-- CreateIndex
CREATE INDEX "OutboxItem_agentId_state_idx" ON "OutboxItem"("agentId", "state") WHERE ("state" IN ('PLANNED', 'DISPATCHED', 'FAILED', 'NEEDS_REVIEW'));
