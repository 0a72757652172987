import path from "node:path";

export type Provider = "sqlite" | "postgresql";

export const providerOf = (databaseUrl: string): Provider =>
  /^postgres(ql)?:/.test(databaseUrl) ? "postgresql" : "sqlite";

/** The schemes Holdfast opens; anything else is refused at start with this list, not a confusing open error. */
export const SUPPORTED_DATABASE_URLS = "file:<path> (SQLite) or postgresql://user@host:port/database (PostgreSQL)";

/** Why a DATABASE_URL cannot be opened, or null when its scheme is one of ours. */
export function unsupportedDatabaseUrl(databaseUrl: string): string | null {
  if (/^file:./.test(databaseUrl) || /^postgres(ql)?:\/\/./.test(databaseUrl)) return null;
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(databaseUrl)?.[1];
  const what = scheme ? `the scheme '${scheme}:' is not supported` : "it is not a database URL";
  return `${what}: use ${SUPPORTED_DATABASE_URLS}`;
}

/** The SQLite file a `file:` URL names, resolved against the working directory. */
export const sqliteFileOf = (databaseUrl: string): string =>
  path.resolve(databaseUrl.slice("file:".length).replace(/\?.*$/, ""));

/** The database for people: "SQLite file /srv/data/holdfast.db", "PostgreSQL holdfast at db:5432 as app" (no password). */
export function describeDatabaseUrl(databaseUrl: string): string {
  if (providerOf(databaseUrl) === "sqlite") return `SQLite file ${sqliteFileOf(databaseUrl)}`;
  const url = new URL(databaseUrl);
  const user = url.username ? ` as ${decodeURIComponent(url.username)}` : "";
  return `PostgreSQL ${url.pathname.slice(1) || "(default database)"} at ${url.host}${user}`;
}
