-- AlterTable
ALTER TABLE "Trigger" ADD COLUMN     "anchorOffsetMs" INTEGER NOT NULL DEFAULT 0;
