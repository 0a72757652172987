/**
 * Prisma's error codes, named. Its client throws `PrismaClientKnownRequestError` with a `code`; the class
 * differs between the two generated clients, so the code is what we read, and only here.
 */
const UNIQUE_CONSTRAINT_FAILED = "P2002";

/** A unique constraint refused the write: someone else inserted the same key first. */
export const isUniqueViolation = (error: unknown): boolean =>
  typeof error === "object" && error !== null && (error as { code?: unknown }).code === UNIQUE_CONSTRAINT_FAILED;
