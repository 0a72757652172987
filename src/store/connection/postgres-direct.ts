import pg from "pg";
import { PLAN_EACH_RUN, type Query } from "./sql";

/**
 * The hot path's statements on PostgreSQL through the `pg` driver itself, on the pool Prisma's adapter also
 * uses: Prisma's raw queries cost about as much CPU per statement as the database's own work (query building,
 * argument and result mapping, the interactive transaction's bookkeeping: bench/held.ts). Each text is a named
 * prepared statement, parsed and planned once per connection.
 *
 * Values read back as Prisma's raw queries gave them, so a step reads the same on either path: a
 * `timestamp(3)` column (stored in UTC, without a zone) is that instant in UTC, whatever the process's time zone;
 * a `bigint` (a count) is a number.
 */
const PARSERS = new Map<number, (text: string) => unknown>([
  [pg.types.builtins.TIMESTAMP, (text) => new Date(`${text.replace(" ", "T")}Z`)],
  [pg.types.builtins.INT8, Number],
]);
const TYPES = {
  getTypeParser: (oid: number, format?: "text" | "binary") =>
    PARSERS.get(oid) ?? pg.types.getTypeParser(oid, format ?? "text"),
};

const names = new Map<string, string>();
const nameOf = (text: string): string => {
  let name = names.get(text);
  if (name === undefined) {
    name = `hf${names.size}`;
    names.set(text, name);
  }
  return name;
};

/** Runs one query of a step on a pooled client (or the pool itself, for a plain read). */
export const runOn =
  (client: pg.Pool | pg.PoolClient, text: (t: string) => string, params: (p: Query["params"]) => unknown[]) =>
  async (q: Query): Promise<unknown> => {
    const sql = text(q.text);
    const name = sql.startsWith(PLAN_EACH_RUN) ? undefined : nameOf(sql);
    const result = await client.query({ name, text: sql, values: params(q.params), types: TYPES });
    return q.mode === "rows" ? result.rows : (result.rowCount ?? 0);
  };

/** One transaction on one pooled client: `body` runs between BEGIN and COMMIT (ROLLBACK if it throws). */
export async function inTransaction<T>(pool: pg.Pool, body: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  // The server may end the connection mid-transaction (a restart, a dropped database): the query under way then
  // fails and says so, and the event, which would otherwise be an uncaught exception, is not needed.
  const ended = () => {};
  client.on("error", ended);
  try {
    await client.query("BEGIN");
    const result = await body(client);
    await client.query("COMMIT");
    client.removeListener("error", ended);
    client.release();
    return result;
  } catch (error) {
    // A connection that cannot even roll back is dropped from the pool rather than reused.
    const broken = await client.query("ROLLBACK").then(
      () => undefined,
      (rollback: Error) => rollback,
    );
    client.removeListener("error", ended);
    client.release(broken);
    throw error;
  }
}

/**
 * The pool drops an idle client whose connection the server ended and opens another for the next query; the
 * event says nothing more, so it is not left to crash the process (Prisma's adapter listens only once it is used).
 */
export const keepPoolErrorsQuiet = (pool: pg.Pool): void => void pool.on("error", () => {});
