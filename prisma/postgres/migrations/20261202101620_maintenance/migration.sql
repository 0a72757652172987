-- CreateTable
CREATE TABLE "Instance" (
    "instance" TEXT NOT NULL,
    "bootId" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'RUNNING',
    "acceptingWork" BOOLEAN NOT NULL DEFAULT true,
    "inFlight" INTEGER NOT NULL DEFAULT 0,
    "heartbeatMs" INTEGER NOT NULL,
    "startedAt" TIMESTAMP(3) NOT NULL,
    "lastSeenAt" TIMESTAMP(3) NOT NULL,
    "stoppedAt" TIMESTAMP(3),
    "previousShutdown" TEXT,
    "recovery" TEXT,

    CONSTRAINT "Instance_pkey" PRIMARY KEY ("instance")
);

-- CreateTable
CREATE TABLE "Maintenance" (
    "id" TEXT NOT NULL,
    "scope" TEXT NOT NULL,
    "instance" TEXT,
    "state" TEXT NOT NULL,
    "reason" TEXT,
    "startedAt" TIMESTAMP(3) NOT NULL,
    "acceptingWork" BOOLEAN NOT NULL DEFAULT false,
    "inFlight" INTEGER NOT NULL DEFAULT 0,
    "drainDeadline" TIMESTAMP(3),
    "by" TEXT,
    "endedAt" TIMESTAMP(3),

    CONSTRAINT "Maintenance_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "MaintenanceAudit" (
    "id" SERIAL NOT NULL,
    "maintenanceId" TEXT,
    "instance" TEXT,
    "action" TEXT NOT NULL,
    "subject" TEXT,
    "fromState" TEXT,
    "toState" TEXT,
    "note" TEXT,
    "by" TEXT,
    "at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "MaintenanceAudit_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Instance_state_lastSeenAt_idx" ON "Instance"("state", "lastSeenAt");

-- CreateIndex
CREATE INDEX "Maintenance_state_idx" ON "Maintenance"("state");

-- CreateIndex
CREATE INDEX "MaintenanceAudit_at_idx" ON "MaintenanceAudit"("at");

-- CreateIndex
CREATE INDEX "MaintenanceAudit_subject_idx" ON "MaintenanceAudit"("subject");
