/*
  Warnings:

  - Added the required column `tenantId` to the `InboxEvent` table without a default value. This is not possible if the table is not empty.
  - Added the required column `tenantId` to the `Occurrence` table without a default value. This is not possible if the table is not empty.
  - Added the required column `tenantId` to the `Trigger` table without a default value. This is not possible if the table is not empty.

*/
-- AlterTable
ALTER TABLE "Control" ADD COLUMN "drainDeadline" DATETIME;

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_InboxEvent" (
    "seq" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "tenantId" TEXT NOT NULL,
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
INSERT INTO "new_InboxEvent" ("agentId", "eventId", "fingerprint", "payload", "receivedAt", "releaseId", "result", "seq", "state", "type") SELECT "agentId", "eventId", "fingerprint", "payload", "receivedAt", "releaseId", "result", "seq", "state", "type" FROM "InboxEvent";
DROP TABLE "InboxEvent";
ALTER TABLE "new_InboxEvent" RENAME TO "InboxEvent";
CREATE INDEX "InboxEvent_agentId_state_seq_idx" ON "InboxEvent"("agentId", "state", "seq");
CREATE UNIQUE INDEX "InboxEvent_agentId_eventId_key" ON "InboxEvent"("agentId", "eventId");
CREATE TABLE "new_Occurrence" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "triggerId" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "agentId" TEXT NOT NULL,
    "dueAt" DATETIME NOT NULL,
    "state" TEXT NOT NULL,
    "outboxId" TEXT,
    "releaseId" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);
INSERT INTO "new_Occurrence" ("agentId", "createdAt", "dueAt", "id", "releaseId", "state", "triggerId", "updatedAt") SELECT "agentId", "createdAt", "dueAt", "id", "releaseId", "state", "triggerId", "updatedAt" FROM "Occurrence";
DROP TABLE "Occurrence";
ALTER TABLE "new_Occurrence" RENAME TO "Occurrence";
CREATE INDEX "Occurrence_agentId_state_idx" ON "Occurrence"("agentId", "state");
CREATE INDEX "Occurrence_triggerId_dueAt_idx" ON "Occurrence"("triggerId", "dueAt");
CREATE TABLE "new_Release" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "tenantId" TEXT NOT NULL,
    "agentId" TEXT,
    "requestedBy" TEXT,
    "heldSince" DATETIME,
    "state" TEXT NOT NULL DEFAULT 'OPEN',
    "released" INTEGER NOT NULL DEFAULT 0,
    "skipped" INTEGER NOT NULL DEFAULT 0,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finishedAt" DATETIME
);
INSERT INTO "new_Release" ("agentId", "createdAt", "finishedAt", "id", "released", "requestedBy", "state", "tenantId") SELECT "agentId", "createdAt", "finishedAt", "id", "released", "requestedBy", "state", "tenantId" FROM "Release";
DROP TABLE "Release";
ALTER TABLE "new_Release" RENAME TO "Release";
CREATE INDEX "Release_state_idx" ON "Release"("state");
CREATE TABLE "new_Trigger" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "tenantId" TEXT NOT NULL,
    "agentId" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "everyMs" INTEGER,
    "cron" TEXT,
    "tz" TEXT,
    "payload" TEXT NOT NULL DEFAULT 'null',
    "destination" TEXT NOT NULL,
    "misfire" TEXT NOT NULL DEFAULT 'coalesce',
    "contract" TEXT NOT NULL DEFAULT 'none',
    "lastDueAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);
INSERT INTO "new_Trigger" ("agentId", "createdAt", "cron", "destination", "everyMs", "id", "key", "lastDueAt", "misfire", "payload", "tz", "updatedAt") SELECT "agentId", "createdAt", "cron", "destination", "everyMs", "id", "key", "lastDueAt", "misfire", "payload", "tz", "updatedAt" FROM "Trigger";
DROP TABLE "Trigger";
ALTER TABLE "new_Trigger" RENAME TO "Trigger";
CREATE UNIQUE INDEX "Trigger_agentId_key_key" ON "Trigger"("agentId", "key");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
