-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_ChatCard" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "runId" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "platform" TEXT NOT NULL,
    "channelId" TEXT NOT NULL,
    "messageId" TEXT,
    "shows" TEXT NOT NULL DEFAULT 'open',
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);
INSERT INTO "new_ChatCard" ("channelId", "createdAt", "id", "messageId", "platform", "runId", "version") SELECT "channelId", "createdAt", "id", "messageId", "platform", "runId", "version" FROM "ChatCard";
DROP TABLE "ChatCard";
ALTER TABLE "new_ChatCard" RENAME TO "ChatCard";
CREATE INDEX "ChatCard_runId_idx" ON "ChatCard"("runId");
CREATE UNIQUE INDEX "ChatCard_runId_version_platform_channelId_key" ON "ChatCard"("runId", "version", "platform", "channelId");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
