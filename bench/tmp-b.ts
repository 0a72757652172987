import { tuneV8 } from "../src/bot/main/v8-tuning";
import { runHeldBench } from "./held";
tuneV8();
const r = await runHeldBench({ redisUrl: "redis://127.0.0.1:6379", postgresAdminUrl: process.env.PGADMIN });
console.log("RESULT b", r.ratios.b.toFixed(3), "c", r.ratios.c.toFixed(3), "bRatios", JSON.stringify((r as any).bRatios ?? null), JSON.stringify((r as any).cpuPerItem ?? null));
process.exit(0);
