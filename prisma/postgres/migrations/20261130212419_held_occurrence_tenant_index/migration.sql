-- CreateIndex
CREATE INDEX "Occurrence_tenantId_state_idx" ON "Occurrence"("tenantId", "state");
