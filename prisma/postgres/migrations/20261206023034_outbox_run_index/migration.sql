-- CreateIndex
CREATE INDEX "OutboxItem_runId_createdAt_idx" ON "OutboxItem"("runId", "createdAt");
