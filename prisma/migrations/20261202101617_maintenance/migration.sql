-- CreateTable
CREATE TABLE "Instance" (
    "instance" TEXT NOT NULL PRIMARY KEY,
    "bootId" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'RUNNING',
    "acceptingWork" BOOLEAN NOT NULL DEFAULT true,
    "inFlight" INTEGER NOT NULL DEFAULT 0,
    "heartbeatMs" INTEGER NOT NULL,
    "startedAt" DATETIME NOT NULL,
    "lastSeenAt" DATETIME NOT NULL,
    "stoppedAt" DATETIME,
    "previousShutdown" TEXT,
    "recovery" TEXT
);

-- CreateTable
CREATE TABLE "Maintenance" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "scope" TEXT NOT NULL,
    "instance" TEXT,
    "state" TEXT NOT NULL,
    "reason" TEXT,
    "startedAt" DATETIME NOT NULL,
    "acceptingWork" BOOLEAN NOT NULL DEFAULT false,
    "inFlight" INTEGER NOT NULL DEFAULT 0,
    "drainDeadline" DATETIME,
    "by" TEXT,
    "endedAt" DATETIME
);

-- CreateTable
CREATE TABLE "MaintenanceAudit" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "maintenanceId" TEXT,
    "instance" TEXT,
    "action" TEXT NOT NULL,
    "subject" TEXT,
    "fromState" TEXT,
    "toState" TEXT,
    "note" TEXT,
    "by" TEXT,
    "at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateIndex
CREATE INDEX "Instance_state_lastSeenAt_idx" ON "Instance"("state", "lastSeenAt");

-- CreateIndex
CREATE INDEX "Maintenance_state_idx" ON "Maintenance"("state");

-- CreateIndex
CREATE INDEX "MaintenanceAudit_at_idx" ON "MaintenanceAudit"("at");

-- CreateIndex
CREATE INDEX "MaintenanceAudit_subject_idx" ON "MaintenanceAudit"("subject");
