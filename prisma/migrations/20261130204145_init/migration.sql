-- CreateTable
CREATE TABLE "Tenant" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "slackTeamId" TEXT,
    "discordGuildId" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "User" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "tenantId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "isAdmin" BOOLEAN NOT NULL DEFAULT false,
    "apiKeyHash" TEXT
);

-- CreateTable
CREATE TABLE "Identity" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "tenantId" TEXT NOT NULL,
    "userId" TEXT NOT NULL
);

-- CreateTable
CREATE TABLE "Agent" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "tenantId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "principalId" TEXT,
    "secondaryManagerId" TEXT,
    "webhook" TEXT,
    "agentKeyHash" TEXT,
    "settings" TEXT NOT NULL DEFAULT '{}'
);

-- CreateTable
CREATE TABLE "AgentRole" (
    "agentId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "role" TEXT NOT NULL,

    PRIMARY KEY ("agentId", "userId", "role")
);

-- CreateTable
CREATE TABLE "Control" (
    "scope" TEXT NOT NULL PRIMARY KEY,
    "tenantId" TEXT NOT NULL,
    "agentId" TEXT,
    "state" TEXT NOT NULL DEFAULT 'RUNNING',
    "holdLevel" TEXT NOT NULL DEFAULT 'none',
    "reason" TEXT,
    "setBy" TEXT,
    "setAt" DATETIME,
    "until" DATETIME,
    "version" INTEGER NOT NULL DEFAULT 0
);

-- CreateTable
CREATE TABLE "ControlAudit" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "scope" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "agentId" TEXT,
    "action" TEXT NOT NULL,
    "actorId" TEXT,
    "outcome" TEXT NOT NULL,
    "reason" TEXT,
    "holdLevel" TEXT,
    "at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "Trigger" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "agentId" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "everyMs" INTEGER,
    "cron" TEXT,
    "tz" TEXT,
    "payload" TEXT NOT NULL DEFAULT 'null',
    "destination" TEXT NOT NULL,
    "misfire" TEXT NOT NULL DEFAULT 'coalesce',
    "lastDueAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "Occurrence" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "triggerId" TEXT NOT NULL,
    "agentId" TEXT NOT NULL,
    "dueAt" DATETIME NOT NULL,
    "state" TEXT NOT NULL,
    "releaseId" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "InboxEvent" (
    "seq" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "agentId" TEXT NOT NULL,
    "eventId" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "payload" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "result" TEXT,
    "releaseId" TEXT,
    "receivedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "Release" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "tenantId" TEXT NOT NULL,
    "agentId" TEXT,
    "requestedBy" TEXT,
    "state" TEXT NOT NULL DEFAULT 'OPEN',
    "released" INTEGER NOT NULL DEFAULT 0,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finishedAt" DATETIME
);

-- CreateTable
CREATE TABLE "Run" (
    "id" TEXT NOT NULL PRIMARY KEY,
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
    "deadline" DATETIME,
    "escalateAfter" INTEGER,
    "reviewers" TEXT NOT NULL DEFAULT '[]',
    "policyVersion" INTEGER NOT NULL DEFAULT 1,
    "decidedBy" TEXT,
    "decidedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "PacketVersion" (
    "runId" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "digest" TEXT NOT NULL,
    "packet" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,

    PRIMARY KEY ("runId", "version")
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
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,

    PRIMARY KEY ("runId", "eventId")
);

-- CreateTable
CREATE TABLE "OutboxItem" (
    "id" TEXT NOT NULL PRIMARY KEY,
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
    "leaseExpiresAt" DATETIME,
    "nextAttemptAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "firstDispatchedAt" DATETIME,
    "lastAttemptAt" DATETIME,
    "lastResult" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "ChatCard" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "runId" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "platform" TEXT NOT NULL,
    "channelId" TEXT NOT NULL,
    "messageId" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
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
