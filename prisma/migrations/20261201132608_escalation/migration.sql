-- CreateTable
CREATE TABLE "EscalationItem" (
    "key" TEXT NOT NULL PRIMARY KEY,
    "activeId" TEXT,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "Escalation" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "itemKey" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "agentId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "itemVersion" INTEGER NOT NULL DEFAULT 0,
    "targets" TEXT NOT NULL DEFAULT '[]',
    "since" DATETIME NOT NULL,
    "policy" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'open',
    "level" INTEGER NOT NULL DEFAULT 0,
    "lastSentAt" DATETIME,
    "acknowledgedBy" TEXT,
    "acknowledgedAt" DATETIME,
    "ackLevel" INTEGER,
    "resolvedAt" DATETIME,
    "resolution" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "EscalationStep" (
    "escalationId" TEXT NOT NULL,
    "level" INTEGER NOT NULL,
    "repeat" INTEGER NOT NULL,
    "dueAt" DATETIME NOT NULL,
    "sentAt" DATETIME NOT NULL,
    "notified" TEXT NOT NULL DEFAULT '[]',

    PRIMARY KEY ("escalationId", "level", "repeat")
);

-- CreateTable
CREATE TABLE "EscalationCard" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "escalationId" TEXT NOT NULL,
    "level" INTEGER NOT NULL,
    "repeat" INTEGER NOT NULL,
    "platform" TEXT NOT NULL,
    "channelId" TEXT NOT NULL,
    "messageId" TEXT,
    "shows" TEXT NOT NULL DEFAULT 'open',
    "content" TEXT NOT NULL DEFAULT '{}',
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateIndex
CREATE INDEX "Escalation_state_idx" ON "Escalation"("state");

-- CreateIndex
CREATE INDEX "Escalation_tenantId_state_createdAt_idx" ON "Escalation"("tenantId", "state", "createdAt");

-- CreateIndex
CREATE INDEX "Escalation_itemKey_idx" ON "Escalation"("itemKey");

-- CreateIndex
CREATE INDEX "EscalationCard_escalationId_idx" ON "EscalationCard"("escalationId");

-- CreateIndex
CREATE UNIQUE INDEX "EscalationCard_escalationId_level_repeat_platform_channelId_key" ON "EscalationCard"("escalationId", "level", "repeat", "platform", "channelId");
