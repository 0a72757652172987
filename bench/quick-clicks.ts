import { tuneV8 } from "../src/bot/main/v8-tuning";
import { benchApprovals } from "./approvals";
import { benchChat } from "./chat";

/**
 * One part of `npm run bench`, measured in a minute while a change is under way (the whole bench takes about
 * five): `decisions` (100 runs x 10 concurrent clicks on PostgreSQL, without the outbox deliveries), or `chat`
 * (500 signed Slack clicks at once; `chat sqlite` or `chat postgresql` for one database). The figures are
 * printed by the same code as in the full bench.
 *
 *   npm run bench:quick:clicks -- decisions
 *   npm run bench:quick:clicks -- chat postgresql
 */
tuneV8();
const [part, database] = process.argv.slice(2).map((a) => a.toLowerCase());
if (part === "decisions") {
  await benchApprovals({ outbox: false });
} else if (part === "chat") {
  if (database !== "postgresql") await benchChat("SQLite");
  if (database !== "sqlite") await benchChat("PostgreSQL");
} else {
  console.error("usage: npm run bench:quick:clicks -- decisions | chat [sqlite|postgresql]");
  process.exit(2);
}
process.exit(0); // pools and the wasm engine may keep the event loop alive
