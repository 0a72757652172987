import type { Database, Statement } from "better-sqlite3";

/**
 * Prepared statements on the SQLite connection Prisma itself uses, for the delivery hot path (ticks,
 * claims, acknowledgements). Prisma spends most of a hot-path round in query building, argument mapping
 * and re-preparing every statement (bench/held.ts); a cached prepared statement costs a fraction of that.
 *
 * Every use is one synchronous transaction, started only while the connection is outside a transaction:
 * nothing else can run on the connection until it commits, and it never joins one of Prisma's interactive
 * transactions (which would roll it back with theirs). Callers therefore pass synchronous bodies and never
 * call this from inside a Prisma transaction.
 */
/** The cached prepared statement for a SQL text. */
export type Sql = (text: string) => Statement;

export class SqliteDirect {
  readonly #connection: () => Promise<Database>;
  readonly #statements = new Map<string, Statement>();
  #database: Database | null = null;

  constructor(connection: () => Promise<Database>) {
    this.#connection = connection;
  }

  /** Runs `body` as one immediate transaction; `sql(text)` gives the cached statement for the text. */
  async atomically<T>(body: (sql: Sql) => T): Promise<T> {
    const database = await this.#outsideTransactions();
    return database.transaction(() => body((text) => this.#statement(database, text))).immediate();
  }

  /** Reads without a transaction: each statement gets its own snapshot, and no write lock is taken. */
  async read<T>(body: (sql: Sql) => T): Promise<T> {
    const database = await this.#outsideTransactions();
    return body((text) => this.#statement(database, text));
  }

  async #outsideTransactions(): Promise<Database> {
    if (!this.#database?.open) {
      this.#database = await this.#connection();
      this.#statements.clear();
    }
    const database = this.#database;
    while (database.inTransaction) await new Promise((resolve) => setImmediate(resolve));
    return database;
  }

  #statement(database: Database, text: string): Statement {
    let statement = this.#statements.get(text);
    if (!statement) {
      statement = database.prepare(text);
      // Prisma's connection returns BigInt for every integer; these statements read plain numbers.
      if (statement.reader) statement.safeIntegers(false);
      this.#statements.set(text, statement);
    }
    return statement;
  }
}

/**
 * DateTime as Prisma's SQLite adapter stores it (ISO 8601 text, so text order is time order). `iso` is the
 * time's `toISOString()` where the caller has it already.
 */
export const sqliteTime = (at: Date, iso = at.toISOString()): string => `${iso.slice(0, -1)}+00:00`;

export const fromSqliteTime = (text: string | null): Date | null => (text === null ? null : new Date(text));
