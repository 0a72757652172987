-- CreateTable
CREATE TABLE "AgentToken" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "agentId" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL,
    "expiresAt" DATETIME NOT NULL,
    "revokedAt" DATETIME
);

-- CreateIndex
CREATE INDEX "AgentToken_agentId_revokedAt_idx" ON "AgentToken"("agentId", "revokedAt");

-- CreateIndex
CREATE INDEX "AgentToken_tenantId_revokedAt_idx" ON "AgentToken"("tenantId", "revokedAt");

-- CreateIndex
CREATE INDEX "AgentToken_expiresAt_idx" ON "AgentToken"("expiresAt");
