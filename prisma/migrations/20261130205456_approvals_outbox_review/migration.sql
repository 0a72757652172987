-- AlterTable
ALTER TABLE "OutboxItem" ADD COLUMN "digest" TEXT;
ALTER TABLE "OutboxItem" ADD COLUMN "observedAt" DATETIME;

-- CreateTable
CREATE TABLE "OutboxReconcile" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "itemId" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "agentId" TEXT NOT NULL,
    "actorId" TEXT NOT NULL,
    "resolution" TEXT NOT NULL,
    "note" TEXT NOT NULL,
    "fromState" TEXT NOT NULL,
    "toState" TEXT NOT NULL,
    "lastResult" TEXT,
    "at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateIndex
CREATE INDEX "OutboxReconcile_itemId_idx" ON "OutboxReconcile"("itemId");

-- CreateIndex
CREATE INDEX "DecisionEvent_runId_createdAt_idx" ON "DecisionEvent"("runId", "createdAt");

-- CreateIndex
CREATE INDEX "OutboxItem_tenantId_state_idx" ON "OutboxItem"("tenantId", "state");
