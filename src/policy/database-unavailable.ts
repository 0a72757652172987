/**
 * Whether a failure means the database cannot serve right now, as opposed to a fault of the request or of
 * Holdfast: the one reading of Prisma's, pg's and the driver adapter's words that the outage watch and every
 * door share. Pure: it reads the error's code and message only.
 */

/**
 * A lost connection: the server refused or closed it (pg: a client whose connection broke "is not queryable"),
 * or is shutting down or starting (57P01 admin_shutdown, 57P03 cannot_connect_now).
 */
const CONNECTION_LOSS =
  /Can't reach database server|Connection terminated|connection error and is not queryable|Server has closed the connection|ECONNREFUSED|ECONNRESET|EPIPE|terminating connection|the database system is (shutting down|starting up|in recovery)|P1001|P1017|57P01|57P03/i;

/**
 * A database that answers but not in time for this request: no pool connection or transaction could be had
 * within the wait (Prisma P2024 and P2028's "Unable to start a transaction", pg's pool timeout), or too many
 * clients (53300). The request changed nothing and may be tried again.
 */
const BUSY =
  /P2024|Unable to start a transaction in the given time|timeout exceeded when trying to connect|Timed out fetching a new connection|53300|too many clients/i;

const words = (error: { message?: string; code?: unknown }) => `${String(error.code ?? "")} ${error.message ?? ""}`;

export const isDatabaseConnectionLoss = (error: { message?: string; code?: unknown }): boolean =>
  CONNECTION_LOSS.test(words(error));

/** Lost, or too busy to take the request: a door answers 503 (try again), never 500. */
export const isDatabaseUnavailable = (error: { message?: string; code?: unknown }): boolean =>
  CONNECTION_LOSS.test(words(error)) || BUSY.test(words(error));
