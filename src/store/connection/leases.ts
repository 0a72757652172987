import type { Store } from "./client";
import { count, rows, sqlText } from "./sql";

const TAKE = sqlText(
  (d) => `INSERT INTO "Lease" ("name", "owner", "expiresAt") VALUES (?, ?, ${d.time})
  ON CONFLICT ("name") DO UPDATE SET "owner" = excluded."owner", "expiresAt" = excluded."expiresAt"
  WHERE "Lease"."expiresAt" < ${d.time} OR "Lease"."owner" = excluded."owner"`,
);

/**
 * Takes the named lease for `ttlMs`, or renews it when `owner` holds it already. False while another owner
 * holds it unexpired. One conditional write, so of two processes asking at once exactly one gets it.
 */
export function takeLease(store: Store, name: string, owner: string, ttlMs: number, now: Date): Promise<boolean> {
  const expiresAt = new Date(now.getTime() + ttlMs);
  return store.sql.write(function* (d) {
    return (yield* count(TAKE(d), name, owner, expiresAt, now)) === 1;
  });
}

/** Gives the lease up at once (the work is done), if `owner` still holds it. */
export async function dropLease(store: Store, name: string, owner: string): Promise<void> {
  await store.db.lease.deleteMany({ where: { name, owner } });
}

/**
 * The deployment's value of a setting: the first process to start writes its own, every later one reads
 * that. A caller compares it with its own and refuses to run when they differ.
 */
export async function agreedSetting(store: Store, key: string, proposed: string): Promise<string> {
  return store.sql.write(function* () {
    yield* count(
      `INSERT INTO "DeploymentSetting" ("key", "value") VALUES (?, ?) ON CONFLICT ("key") DO NOTHING`,
      key,
      proposed,
    );
    const [row] = yield* rows<{ value: string }>(`SELECT "value" FROM "DeploymentSetting" WHERE "key" = ?`, key);
    return row!.value;
  });
}
