-- CreateIndex
CREATE INDEX "Control_state_idx" ON "Control"("state");

-- CreateIndex
CREATE INDEX "InboxEvent_state_agentId_idx" ON "InboxEvent"("state", "agentId");
