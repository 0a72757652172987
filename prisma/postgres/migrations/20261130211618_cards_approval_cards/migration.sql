/*
  Warnings:

  - A unique constraint covering the columns `[runId,version,platform,channelId]` on the table `ChatCard` will be added. If there are existing duplicate values, this will fail.

*/
-- AlterTable
ALTER TABLE "ChatCard" ADD COLUMN     "shows" TEXT NOT NULL DEFAULT 'open',
ADD COLUMN     "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
ALTER COLUMN "messageId" DROP NOT NULL;

-- CreateIndex
CREATE UNIQUE INDEX "ChatCard_runId_version_platform_channelId_key" ON "ChatCard"("runId", "version", "platform", "channelId");
