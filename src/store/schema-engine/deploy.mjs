// usage: node deploy.mjs <databaseUrl> — applies pending migrations and prints the applied names as JSON.
// A process of its own because the wasm engine keeps the event loop alive after free().
import { applyMigrations } from "./migrations.mjs";

const url = process.argv[2];
try {
  process.stdout.write(JSON.stringify(await applyMigrations(url)));
  process.exit(0);
} catch (error) {
  process.stderr.write(String(error?.message ?? error));
  process.exit(1);
}
