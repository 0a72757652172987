// A throwaway PostgreSQL database for schema-engine work (creating or checking migrations).
import crypto from "node:crypto";
import pg from "pg";

export async function withScratchPostgres(prefix, fn) {
  const admin = process.env.PG_ADMIN_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
  const db = `${prefix}_${crypto.randomUUID().replace(/-/g, "")}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`CREATE DATABASE ${db}`);
  try {
    const url = new URL(admin);
    url.pathname = `/${db}`;
    return await fn(url.toString());
  } finally {
    await client.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
    await client.end();
  }
}
