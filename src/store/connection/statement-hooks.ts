import type { Database, Statement } from "better-sqlite3";
import type pg from "pg";

/**
 * Called with the text of every statement the database driver is asked to run, before it runs: on
 * PostgreSQL each `query` of a pooled pg client, on SQLite each execution of a better-sqlite3 statement
 * (Prisma's own and the cached ones of sqlite-direct.ts alike). It counts what reaches the database, so a
 * test can hold a path to a budget of statements without knowing which layer issued them.
 */
export type StatementHook = (sql: string) => void;

export interface StoreOptions {
  onStatement?: StatementHook;
}

/** Every client the pool opens reports its queries (the pool's own `query` goes through a client too). */
export function hookPool(pool: pg.Pool, hook: StatementHook): void {
  pool.on("connect", (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    const counted = (...args: unknown[]) => {
      const [first] = args;
      hook(typeof first === "string" ? first : String((first as { text?: unknown }).text ?? ""));
      return query(...args);
    };
    Object.assign(client, { query: counted });
  });
}

const EXECUTIONS = ["run", "get", "all", "iterate"] as const;

/** Statements prepared on this connection report each execution (one prepared statement may run many times). */
export function hookSqlite(database: Database, hook: StatementHook): void {
  const prepare = database.prepare.bind(database);
  const counted = (source: string): Statement => {
    const statement = prepare(source);
    for (const name of EXECUTIONS) {
      const execute = statement[name].bind(statement) as (...args: unknown[]) => unknown;
      Object.assign(statement, {
        [name]: (...args: unknown[]) => {
          hook(source);
          return execute(...args);
        },
      });
    }
    return statement;
  };
  Object.assign(database, { prepare: counted });
}
