import pino from "pino";
import { HoldfastEvents } from "../src/bot/app/events";
import { startHeld } from "../src/bot/main/held-wiring";
import { tuneV8 } from "../src/bot/main/v8-tuning";
import { openStore } from "../src/store/connection/client";

/**
 * A second bot process for bench/held.ts's two-process rounds: the held-work runtime alone (tick workers,
 * delivery loop, reconciler) on the bench's database and queue prefix, as a second `npm start` would run it.
 * Arguments: database URL, Redis URL, queue prefix. It says "ready" on stdout and stops when stdin closes.
 */
tuneV8();
const [url, redisUrl, prefix] = process.argv.slice(2) as [string, string, string];
const store = await openStore(url);
const ctx = { store, log: pino({ level: "warn" }), now: () => new Date(), events: new HoldfastEvents() };
const runtime = await startHeld(ctx, { redisUrl, prefix, reconcileMs: 1000 });
process.stdout.write("ready\n");
process.stdin.resume();
process.stdin.on("end", async () => {
  await runtime.stop();
  await store.close();
  process.exit(0);
});
