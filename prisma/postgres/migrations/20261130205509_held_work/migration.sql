/*
  Warnings:

  - Added the required column `tenantId` to the `InboxEvent` table without a default value. This is not possible if the table is not empty.
  - Added the required column `tenantId` to the `Occurrence` table without a default value. This is not possible if the table is not empty.
  - Added the required column `tenantId` to the `Trigger` table without a default value. This is not possible if the table is not empty.

*/
-- AlterTable
ALTER TABLE "Control" ADD COLUMN     "drainDeadline" TIMESTAMP(3);

-- AlterTable
ALTER TABLE "InboxEvent" ADD COLUMN     "tenantId" TEXT NOT NULL;

-- AlterTable
ALTER TABLE "Occurrence" ADD COLUMN     "outboxId" TEXT,
ADD COLUMN     "tenantId" TEXT NOT NULL;

-- AlterTable
ALTER TABLE "Release" ADD COLUMN     "heldSince" TIMESTAMP(3),
ADD COLUMN     "skipped" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "Trigger" ADD COLUMN     "contract" TEXT NOT NULL DEFAULT 'none',
ADD COLUMN     "tenantId" TEXT NOT NULL;
