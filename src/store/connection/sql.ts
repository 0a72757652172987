/**
 * Portable SQL steps: a rule of the hot path (a tick batch, a release step, a claim) is written once as a
 * generator that yields queries and receives their rows, and each database runs it its own way (SQLite: one
 * synchronous transaction of cached prepared statements; PostgreSQL: an interactive transaction). Only the
 * dialect differs, through the few fragments in `Dialect`; the rule, its order of statements and its
 * conditions are the same text on both.
 *
 * Timestamps are written through `d.time` and read back with `asDate` (SQLite keeps Prisma's ISO text,
 * PostgreSQL a `timestamp(3)` in UTC); lists go in as one parameter through `d.list`.
 */
import { sqliteTime } from "./sqlite-direct";

export type Param = string | number | boolean | null | Date | readonly string[] | RowsParam;

/** Rows for `d.rowsOf` (`rowsParam`), all of one width; each database passes them its own way. */
export class RowsParam {
  readonly width: number;
  constructor(readonly values: ReadonlyArray<ReadonlyArray<string | number | null>>) {
    if (values.length === 0) throw new Error("rowsParam needs at least one row");
    this.width = values[0]!.length;
  }
  /** As JSON: an array of arrays (SQLite). */
  json = (): string => JSON.stringify(this.values);
  /** As one text array per column (PostgreSQL: `unnest`). */
  columns = (): Array<Array<string | null>> =>
    Array.from({ length: this.width }, (_, i) => this.values.map((v) => (v[i] === null ? null : String(v[i]))));
}

export interface Query {
  text: string;
  params: readonly Param[];
  /** `rows`: the statement's rows; `count`: how many rows it changed. */
  mode: "rows" | "count";
}

export type Step<T> = Generator<Query, T, unknown>;

/** Rows of one statement. */
export function* rows<R>(text: string, ...params: Param[]): Step<R[]> {
  return (yield { text, params, mode: "rows" }) as R[];
}

/** The number of rows a statement changed. */
export function* count(text: string, ...params: Param[]): Step<number> {
  return (yield { text, params, mode: "count" }) as number;
}

export interface Dialect {
  readonly name: "sqlite" | "postgresql";
  /** A timestamp parameter, comparable with the DateTime columns. */
  readonly time: string;
  /**
   * A list parameter as a one-column set: `"x" IN ${d.list}`. SQLite reads it as JSON; PostgreSQL as a text
   * array, whose length the planner knows (a JSON array counts as 100 rows to it).
   */
  readonly list: string;
  /**
   * A parameter of rows (`rowsParam`) as a derived table `r` with the columns "c0" …: many rows in one
   * statement, so one round trip. SQLite reads them from one JSON array of arrays; PostgreSQL unnests one text
   * array per column, whose row count the planner knows (it takes a JSON array for 100 rows, and joined a
   * wave's one row to the outbox by a hash join over a scan of the whole table: 1.2-2.3 ms on 4,000 rows,
   * against 0.1 ms through the primary key). Values come out as text (SQLite: as JSON holds them), so a
   * statement casts what it needs: `CAST(r."c3" AS INTEGER)`, `d.timeOf('r."c4"')`.
   */
  rowsOf(width: number): string;
  /**
   * One row of the same shape as `rowsOf`'s, from plain parameters (one each): a single row costs no JSON to
   * write and read (on SQLite a release step's one delivery cost about 15 % more CPU through JSON).
   */
  oneRow(width: number): string;
  /**
   * A condition on `column`: its value is one of those `select` picks. PostgreSQL computes the picked values
   * once, as an array (`= ANY(ARRAY(...))`), whatever its planner estimates. Written as `IN (select)`, the
   * planner, trusting statistics taken before a burst of inserts (one row estimated, 10,000 there), joined each
   * row to the subquery again: a claim of 500 outbox items ran the lane window once per unfinished item, 0.1-1 s
   * a claim after a release of 10,000 deliveries (test/store/claim-plan.test.ts). SQLite runs a non-correlated
   * `IN (select)` once already.
   */
  amongPicked(column: string, select: string): string;
  /**
   * Written after a table's name: read it through this index. SQLite's planner, which has no statistics here,
   * takes a list parameter (`d.list`) for many rows, and read the outbox rows of a few agents through the
   * state index instead, over every agent's open rows. A partial index so named also makes SQLite refuse a
   * query that does not repeat the index's condition. PostgreSQL plans from statistics: nothing.
   */
  indexedBy(index: string): string;
  /** A timestamp of `rowsParam` (written by `rowTime`) as a value comparable with the DateTime columns. */
  timeOf(column: string): string;
  /** The text of `key` in a column of JSON object text (a button's payload), or null when it has none. */
  jsonText(column: string, key: string): string;
  /**
   * Taken before the reads that decide a transaction's writes across processes (the outbox lanes). SQLite
   * has one writer at a time already (immediate transactions); PostgreSQL takes a transaction-level
   * advisory lock, so two claims never decide on the same snapshot.
   */
  readonly laneLock: string | null;
  /** The same for the directory sync at start, which several processes starting at once all run. */
  readonly directoryLock: string | null;
  /**
   * Run in a transaction before a statement that joins sets whose sizes the planner cannot know (the outbox
   * claim, after a burst of inserts into a quiet table): PostgreSQL then joins them by hash or merge, never
   * by a nested loop that runs one side again per row of the other. It holds until the transaction ends.
   * SQLite indexes such a join automatically: none.
   */
  readonly noNestedLoops: string | null;
  /**
   * Appended to a read of control records whose verdict the same transaction acts on at once (a tick batch
   * that dispatches what it plans): a pause's write then waits for this transaction, so the pause's drain
   * sees what it dispatched, or this transaction waits for the pause and reads it. SQLite runs one write
   * transaction at a time, so it needs nothing.
   */
  readonly forShare: string;
  /**
   * Test only (the chaos suite's before-claim-commit pause): holds a transaction open a few seconds, so a
   * driver's SIGKILL lands before it commits. SQLite's transactions are synchronous: none.
   */
  readonly holdOpen: string | null;
  /**
   * The database runs INSERT and UPDATE inside WITH (PostgreSQL), so several dependent writes can be one
   * statement: one round trip where a transaction of them is one per statement plus BEGIN and COMMIT.
   * SQLite does not, and its transactions are in-process calls anyway.
   */
  readonly writesInWith: boolean;
}

const columns = (width: number, column: (i: number) => string) =>
  Array.from({ length: width }, (_, i) => `${column(i)} AS "c${i}"`).join(", ");

export const SQLITE: Dialect = {
  name: "sqlite",
  time: "?",
  list: "(SELECT value FROM json_each(?))",
  rowsOf: (width) => `(SELECT ${columns(width, (i) => `json_extract(value, '$[${i}]')`)} FROM json_each(?)) AS r`,
  oneRow: (width) => `(SELECT ${columns(width, () => "?")}) AS r`,
  timeOf: (column) => column,
  jsonText: (column, key) => `json_extract(${column}, '$.${key}')`,
  amongPicked: (column, select) => `${column} IN (${select})`,
  indexedBy: (index) => ` INDEXED BY "${index}"`,
  laneLock: null,
  directoryLock: null,
  noNestedLoops: null,
  forShare: "",
  holdOpen: null,
  writesInWith: false,
};

export const POSTGRES: Dialect = {
  name: "postgresql",
  time: "(?::timestamptz AT TIME ZONE 'UTC')",
  list: "(SELECT unnest(?::text[]))",
  rowsOf: (width) =>
    `unnest(${Array.from({ length: width }, () => "?::text[]").join(", ")}) AS r(${Array.from({ length: width }, (_, i) => `"c${i}"`).join(", ")})`,
  oneRow: (width) => `(SELECT ${columns(width, () => "?::text")}) AS r`,
  timeOf: (column) => `(${column}::timestamptz AT TIME ZONE 'UTC')`,
  jsonText: (column, key) => `(${column}::jsonb ->> '${key}')`,
  amongPicked: (column, select) => `${column} = ANY(ARRAY(${select}))`,
  indexedBy: () => "",
  laneLock: "SELECT 1 AS locked FROM pg_advisory_xact_lock(7140001)",
  directoryLock: "SELECT 1 AS locked FROM pg_advisory_xact_lock(7140002)",
  noNestedLoops: "SELECT set_config('enable_nestloop', 'off', true) AS setting",
  forShare: "FOR SHARE",
  holdOpen: "SELECT 1 AS held FROM pg_sleep(3)",
  writesInWith: true,
};

/** Rows for `d.rowsOf`: one parameter, however many rows. */
export const rowsParam = (values: ReadonlyArray<ReadonlyArray<string | number | null>>): RowsParam =>
  new RowsParam(values);

/**
 * A timestamp inside `rowsParam`, in the text SQLite's DateTime columns hold (ISO 8601 with `+00:00`, so text
 * order is time order); PostgreSQL reads the same text as that instant (`d.timeOf`).
 */
export const rowTime = (at: Date | null): string | null => (at === null ? null : sqliteTime(at));

/** A DateTime column's value as either database returns it. */
export const asDate = (value: unknown): Date => (value instanceof Date ? value : new Date(value as string));
export const asDateOrNull = (value: unknown): Date | null =>
  value === null || value === undefined ? null : asDate(value);

/** Runs portable steps, each as one transaction (`write`) or as plain reads (`read`). One per database. */
export interface SqlRunner {
  readonly dialect: Dialect;
  write<T>(step: (d: Dialect) => Step<T>): Promise<T>;
  read<T>(step: (d: Dialect) => Step<T>): Promise<T>;
  /**
   * A write of one statement, atomic by itself: PostgreSQL runs it without BEGIN and COMMIT (a transaction
   * around one statement is three round trips, this is one), SQLite as `write`. A second statement throws.
   */
  statement<T>(step: (d: Dialect) => Step<T>): Promise<T>;
  /** Runs a step inside a Prisma transaction the caller holds (a decision, an event's hand-over). */
  within<T>(tx: RawQueries, step: (d: Dialect) => Step<T>): Promise<T>;
}

/** The raw-query half of a Prisma client or transaction. */
export interface RawQueries {
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T>;
  $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number>;
}

/**
 * A text that starts with this is planned at each run, for the values it runs with, instead of once per
 * connection (PostgreSQL; SQLite plans at prepare time and keeps no statistics to go stale). For a statement
 * whose best plan depends on how many rows a table holds now: a cached plan is made for the table as it was,
 * and kept until the next ANALYZE, which autovacuum runs a minute or more after a burst of inserts.
 */
export const PLAN_EACH_RUN = "/* planned at each run */";

/** A statement's text per dialect, built once. */
export function sqlText(build: (d: Dialect) => string): (d: Dialect) => string {
  const built = new Map<Dialect, string>();
  return (d) => {
    let text = built.get(d);
    if (text === undefined) {
      text = build(d);
      built.set(d, text);
    }
    return text;
  };
}

/** The step, held to one statement (`SqlRunner.statement`). */
export function* oneStatement<T>(step: Step<T>): Step<T> {
  let next = step.next();
  if (next.done) return next.value;
  next = step.next(yield next.value);
  if (!next.done) throw new Error("a one-statement step yielded a second statement");
  return next.value;
}

/** Drives a step with a synchronous executor (SQLite). */
export function driveSync<T>(step: Step<T>, execute: (query: Query) => unknown): T {
  let next = step.next();
  while (!next.done) next = step.next(execute(next.value));
  return next.value;
}

/** Drives a step with an asynchronous executor (PostgreSQL). */
export async function driveAsync<T>(step: Step<T>, execute: (query: Query) => Promise<unknown>): Promise<T> {
  let next = step.next();
  while (!next.done) next = step.next(await execute(next.value));
  return next.value;
}
