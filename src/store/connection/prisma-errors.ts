/**
 * Prisma's error codes, named. Its client throws `PrismaClientKnownRequestError` with a `code`; the class
 * differs between the two generated clients, so the code is what we read, and only here.
 */
const UNIQUE_CONSTRAINT_FAILED = "P2002";
/** The same from PostgreSQL itself, as the `pg` driver reports it (the hot path's steps: postgres-direct.ts). */
const POSTGRES_UNIQUE_VIOLATION = "23505";

/** A unique constraint refused the write: someone else inserted the same key first. */
export const isUniqueViolation = (error: unknown): boolean => {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  return code === UNIQUE_CONSTRAINT_FAILED || code === POSTGRES_UNIQUE_VIOLATION;
};
