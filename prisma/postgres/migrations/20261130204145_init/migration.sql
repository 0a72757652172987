-- CreateTable
CREATE TABLE "Tenant" (
    "id" TEXT NOT NULL,
    "slackTeamId" TEXT,
    "discordGuildId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Tenant_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "User" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "isAdmin" BOOLEAN NOT NULL DEFAULT false,
    "apiKeyHash" TEXT,

    CONSTRAINT "User_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Identity" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,

    CONSTRAINT "Identity_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Agent" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "principalId" TEXT,
    "secondaryManagerId" TEXT,
    "webhook" TEXT,
    "agentKeyHash" TEXT,
    "settings" TEXT NOT NULL DEFAULT '{}',

    CONSTRAINT "Agent_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AgentRole" (
    "agentId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "role" TEXT NOT NULL,

    CONSTRAINT "AgentRole_pkey" PRIMARY KEY ("agentId","userId","role")
);

-- CreateTable
CREATE TABLE "Control" (
    "scope" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "agentId" TEXT,
    "state" TEXT NOT NULL DEFAULT 'RUNNING',
    "holdLevel" TEXT NOT NULL DEFAULT 'none',
    "reason" TEXT,
    "setBy" TEXT,
    "setAt" TIMESTAMP(3),
    "until" TIMESTAMP(3),
    "version" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "Control_pkey" PRIMARY KEY ("scope")
);

-- CreateTable
CREATE TABLE "ControlAudit" (
    "id" SERIAL NOT NULL,
    "scope" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "agentId" TEXT,
    "action" TEXT NOT NULL,
    "actorId" TEXT,
    "outcome" TEXT NOT NULL,
    "reason" TEXT,
    "holdLevel" TEXT,
    "at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ControlAudit_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Trigger" (
    "id" TEXT NOT NULL,
    "agentId" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "everyMs" INTEGER,
    "cron" TEXT,
    "tz" TEXT,
    "payload" TEXT NOT NULL DEFAULT 'null',
    "destination" TEXT NOT NULL,
    "misfire" TEXT NOT NULL DEFAULT 'coalesce',
    "lastDueAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Trigger_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Occurrence" (
    "id" TEXT NOT NULL,
    "triggerId" TEXT NOT NULL,
    "agentId" TEXT NOT NULL,
    "dueAt" TIMESTAMP(3) NOT NULL,
    "state" TEXT NOT NULL,
    "releaseId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Occurrence_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "InboxEvent" (
    "seq" SERIAL NOT NULL,
    "agentId" TEXT NOT NULL,
    "eventId" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "payload" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "result" TEXT,
    "releaseId" TEXT,
    "receivedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "InboxEvent_pkey" PRIMARY KEY ("seq")
);

-- CreateTable
CREATE TABLE "Release" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "agentId" TEXT,
    "requestedBy" TEXT,
    "state" TEXT NOT NULL DEFAULT 'OPEN',
    "released" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finishedAt" TIMESTAMP(3),

    CONSTRAINT "Release_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Run" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "agentId" TEXT NOT NULL,
    "operation" TEXT,
    "destination" TEXT,
    "state" TEXT NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 1,
    "digest" TEXT,
    "packet" TEXT,
    "checkpoint" TEXT,
    "vars" TEXT NOT NULL DEFAULT '{}',
    "deadline" TIMESTAMP(3),
    "escalateAfter" INTEGER,
    "reviewers" TEXT NOT NULL DEFAULT '[]',
    "policyVersion" INTEGER NOT NULL DEFAULT 1,
    "decidedBy" TEXT,
    "decidedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Run_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "PacketVersion" (
    "runId" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "digest" TEXT NOT NULL,
    "packet" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PacketVersion_pkey" PRIMARY KEY ("runId","version")
);

-- CreateTable
CREATE TABLE "DecisionEvent" (
    "runId" TEXT NOT NULL,
    "eventId" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "actorId" TEXT,
    "action" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "digest" TEXT NOT NULL,
    "result" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "DecisionEvent_pkey" PRIMARY KEY ("runId","eventId")
);

-- CreateTable
CREATE TABLE "OutboxItem" (
    "id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "agentId" TEXT NOT NULL,
    "runId" TEXT,
    "destination" TEXT NOT NULL,
    "contract" TEXT NOT NULL DEFAULT 'none',
    "payload" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'PLANNED',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "leaseToken" TEXT,
    "leaseAttemptId" TEXT,
    "leaseExpiresAt" TIMESTAMP(3),
    "nextAttemptAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "firstDispatchedAt" TIMESTAMP(3),
    "lastAttemptAt" TIMESTAMP(3),
    "lastResult" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "OutboxItem_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ChatCard" (
    "id" SERIAL NOT NULL,
    "runId" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "platform" TEXT NOT NULL,
    "channelId" TEXT NOT NULL,
    "messageId" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ChatCard_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "Tenant_slackTeamId_key" ON "Tenant"("slackTeamId");

-- CreateIndex
CREATE UNIQUE INDEX "Tenant_discordGuildId_key" ON "Tenant"("discordGuildId");

-- CreateIndex
CREATE UNIQUE INDEX "User_apiKeyHash_key" ON "User"("apiKeyHash");

-- CreateIndex
CREATE UNIQUE INDEX "User_tenantId_name_key" ON "User"("tenantId", "name");

-- CreateIndex
CREATE INDEX "Identity_userId_idx" ON "Identity"("userId");

-- CreateIndex
CREATE UNIQUE INDEX "Agent_agentKeyHash_key" ON "Agent"("agentKeyHash");

-- CreateIndex
CREATE UNIQUE INDEX "Agent_tenantId_name_key" ON "Agent"("tenantId", "name");

-- CreateIndex
CREATE INDEX "AgentRole_userId_idx" ON "AgentRole"("userId");

-- CreateIndex
CREATE INDEX "ControlAudit_scope_at_idx" ON "ControlAudit"("scope", "at");

-- CreateIndex
CREATE UNIQUE INDEX "Trigger_agentId_key_key" ON "Trigger"("agentId", "key");

-- CreateIndex
CREATE INDEX "Occurrence_agentId_state_idx" ON "Occurrence"("agentId", "state");

-- CreateIndex
CREATE INDEX "Occurrence_triggerId_dueAt_idx" ON "Occurrence"("triggerId", "dueAt");

-- CreateIndex
CREATE INDEX "InboxEvent_agentId_state_seq_idx" ON "InboxEvent"("agentId", "state", "seq");

-- CreateIndex
CREATE UNIQUE INDEX "InboxEvent_agentId_eventId_key" ON "InboxEvent"("agentId", "eventId");

-- CreateIndex
CREATE INDEX "Release_state_idx" ON "Release"("state");

-- CreateIndex
CREATE INDEX "Run_agentId_state_idx" ON "Run"("agentId", "state");

-- CreateIndex
CREATE INDEX "OutboxItem_state_nextAttemptAt_idx" ON "OutboxItem"("state", "nextAttemptAt");

-- CreateIndex
CREATE INDEX "OutboxItem_agentId_state_idx" ON "OutboxItem"("agentId", "state");

-- CreateIndex
CREATE INDEX "ChatCard_runId_idx" ON "ChatCard"("runId");
