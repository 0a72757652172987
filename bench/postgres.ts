import crypto from "node:crypto";
import pg from "pg";

export const PG_ADMIN_URL = process.env.PG_ADMIN_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";

/** A database of the bench's own on a PostgreSQL server, dropped afterwards. */
export async function freshPostgres(adminUrl = PG_ADMIN_URL): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `holdfast_bench_${crypto.randomUUID().replace(/-/g, "").slice(0, 12)}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
