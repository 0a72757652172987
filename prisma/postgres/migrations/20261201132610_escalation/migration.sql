-- CreateTable
CREATE TABLE "EscalationItem" (
    "key" TEXT NOT NULL,
    "activeId" TEXT,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "EscalationItem_pkey" PRIMARY KEY ("key")
);

-- CreateTable
CREATE TABLE "Escalation" (
    "id" TEXT NOT NULL,
    "itemKey" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "agentId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "itemVersion" INTEGER NOT NULL DEFAULT 0,
    "targets" TEXT NOT NULL DEFAULT '[]',
    "since" TIMESTAMP(3) NOT NULL,
    "policy" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'open',
    "level" INTEGER NOT NULL DEFAULT 0,
    "lastSentAt" TIMESTAMP(3),
    "acknowledgedBy" TEXT,
    "acknowledgedAt" TIMESTAMP(3),
    "ackLevel" INTEGER,
    "resolvedAt" TIMESTAMP(3),
    "resolution" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Escalation_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "EscalationStep" (
    "escalationId" TEXT NOT NULL,
    "level" INTEGER NOT NULL,
    "repeat" INTEGER NOT NULL,
    "dueAt" TIMESTAMP(3) NOT NULL,
    "sentAt" TIMESTAMP(3) NOT NULL,
    "notified" TEXT NOT NULL DEFAULT '[]',

    CONSTRAINT "EscalationStep_pkey" PRIMARY KEY ("escalationId","level","repeat")
);

-- CreateTable
CREATE TABLE "EscalationCard" (
    "id" SERIAL NOT NULL,
    "escalationId" TEXT NOT NULL,
    "level" INTEGER NOT NULL,
    "repeat" INTEGER NOT NULL,
    "platform" TEXT NOT NULL,
    "channelId" TEXT NOT NULL,
    "messageId" TEXT,
    "shows" TEXT NOT NULL DEFAULT 'open',
    "content" TEXT NOT NULL DEFAULT '{}',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "EscalationCard_pkey" PRIMARY KEY ("id")
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
