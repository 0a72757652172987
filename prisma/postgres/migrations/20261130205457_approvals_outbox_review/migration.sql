-- AlterTable
ALTER TABLE "OutboxItem" ADD COLUMN     "digest" TEXT,
ADD COLUMN     "observedAt" TIMESTAMP(3);

-- CreateTable
CREATE TABLE "OutboxReconcile" (
    "id" SERIAL NOT NULL,
    "itemId" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "agentId" TEXT NOT NULL,
    "actorId" TEXT NOT NULL,
    "resolution" TEXT NOT NULL,
    "note" TEXT NOT NULL,
    "fromState" TEXT NOT NULL,
    "toState" TEXT NOT NULL,
    "lastResult" TEXT,
    "at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "OutboxReconcile_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "OutboxReconcile_itemId_idx" ON "OutboxReconcile"("itemId");

-- CreateIndex
CREATE INDEX "DecisionEvent_runId_createdAt_idx" ON "DecisionEvent"("runId", "createdAt");

-- CreateIndex
CREATE INDEX "OutboxItem_tenantId_state_idx" ON "OutboxItem"("tenantId", "state");
