-- AlterTable
ALTER TABLE "DecisionEvent" ADD COLUMN "agentId" TEXT;
ALTER TABLE "DecisionEvent" ADD COLUMN "tenantId" TEXT;

-- CreateIndex
CREATE INDEX "ControlAudit_tenantId_at_idx" ON "ControlAudit"("tenantId", "at");

-- CreateIndex
CREATE INDEX "ControlAudit_agentId_at_idx" ON "ControlAudit"("agentId", "at");

-- CreateIndex
CREATE INDEX "DecisionEvent_tenantId_createdAt_idx" ON "DecisionEvent"("tenantId", "createdAt");

-- CreateIndex
CREATE INDEX "DecisionEvent_agentId_createdAt_idx" ON "DecisionEvent"("agentId", "createdAt");

-- CreateIndex
CREATE INDEX "OutboxReconcile_tenantId_at_idx" ON "OutboxReconcile"("tenantId", "at");

-- CreateIndex
CREATE INDEX "OutboxReconcile_agentId_at_idx" ON "OutboxReconcile"("agentId", "at");

-- CreateIndex
CREATE INDEX "Run_tenantId_createdAt_idx" ON "Run"("tenantId", "createdAt");

-- CreateIndex
CREATE INDEX "Run_tenantId_state_createdAt_idx" ON "Run"("tenantId", "state", "createdAt");

-- CreateIndex
CREATE INDEX "Run_agentId_createdAt_idx" ON "Run"("agentId", "createdAt");

-- Backfill: decisions recorded before these columns take their run's tenant and agent.
UPDATE "DecisionEvent" SET "tenantId" = (SELECT "tenantId" FROM "Run" WHERE "Run"."id" = "DecisionEvent"."runId"), "agentId" = (SELECT "agentId" FROM "Run" WHERE "Run"."id" = "DecisionEvent"."runId");
