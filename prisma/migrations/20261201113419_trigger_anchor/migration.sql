-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Trigger" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "tenantId" TEXT NOT NULL,
    "agentId" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "everyMs" REAL,
    "anchorOffsetMs" INTEGER NOT NULL DEFAULT 0,
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
INSERT INTO "new_Trigger" ("agentId", "contract", "createdAt", "cron", "destination", "everyMs", "id", "key", "lastDueAt", "misfire", "payload", "tenantId", "tz", "updatedAt") SELECT "agentId", "contract", "createdAt", "cron", "destination", "everyMs", "id", "key", "lastDueAt", "misfire", "payload", "tenantId", "tz", "updatedAt" FROM "Trigger";
DROP TABLE "Trigger";
ALTER TABLE "new_Trigger" RENAME TO "Trigger";
CREATE UNIQUE INDEX "Trigger_agentId_key_key" ON "Trigger"("agentId", "key");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
