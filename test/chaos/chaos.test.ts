import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkInvariants } from "../support/invariants";
import { type PrivatePostgres, startPrivatePostgres } from "../support/private-postgres";
import {
  type ChaosRedis,
  openScene,
  startChaosRedis,
  stopAllTicks,
  TICK_MS,
  type Topology,
  unexpectedExits,
} from "./driver";
import { type Entry, MATRIX } from "./matrix";

/**
 * The chaos suite (`npm run test:chaos`, issue 23): every entry of the fault matrix on real bot processes, one
 * private PostgreSQL and a private Redis of each topology, the same invariants after each entry. Profiles
 * (CHAOS_PROFILE): `ci` runs every entry once on one Redis server, the Sentinel failovers and one Cluster pass;
 * `full` (the default) runs each entry on every topology it lists. CHAOS_TOPOLOGY=single|sentinel|cluster
 * narrows either to one topology; CHAOS_ONLY=<words> to the entries whose name contains them.
 */
const PROFILE = process.env.CHAOS_PROFILE === "ci" ? "ci" : "full";
const CI_EXTRA: Record<Topology, string[]> = {
  single: [],
  sentinel: ["Sentinel failover while paused", "Sentinel failover while running"],
  cluster: ["Redis restart while running"],
};
const selected = (entry: Entry, topology: Topology): boolean => {
  if (!entry.topologies.includes(topology)) return false;
  if (process.env.CHAOS_ONLY && !entry.name.includes(process.env.CHAOS_ONLY)) return false;
  if (PROFILE === "full") return true;
  return topology === "single" ? entry.ci : CI_EXTRA[topology].includes(entry.name);
};
const topologies = (["single", "sentinel", "cluster"] as Topology[]).filter(
  (t) => !process.env.CHAOS_TOPOLOGY || process.env.CHAOS_TOPOLOGY === t,
);

interface Row {
  topology: Topology;
  entry: string;
  result: string;
  recoverMs: number | null;
  checked: number;
}
const rows: Row[] = [];
let pg: PrivatePostgres;
beforeAll(async () => {
  pg = await startPrivatePostgres();
}, 120_000);
afterAll(async () => {
  await pg?.destroy();
  const line = (r: Row) =>
    `| ${r.topology.padEnd(8)} | ${r.entry.padEnd(46)} | ${r.result.padEnd(8)} | ${String(r.recoverMs ?? "-").padStart(7)} | ${String(r.checked).padStart(6)} |`;
  console.log(
    [
      `chaos profile ${PROFILE}:`,
      "| topology | entry                                          | result   | recover | items  |",
      "| -------- | ---------------------------------------------- | -------- | ------: | -----: |",
      ...rows.map(line),
    ].join("\n"),
  );
});

for (const topology of topologies) {
  const entries = MATRIX.filter((e) => selected(e, topology));
  if (entries.length === 0) continue;
  describe.sequential(`chaos on ${topology} Redis`, () => {
    let redis: ChaosRedis;
    beforeAll(async () => {
      redis = await startChaosRedis(topology);
    }, 120_000);
    afterAll(async () => redis?.stop());
    for (const entry of entries) {
      if (entry.pending) {
        it.skip(`${entry.name} (pending: ${entry.pending})`, () => {});
        rows.push({ topology, entry: entry.name, result: "pending", recoverMs: null, checked: 0 });
        continue;
      }
      it(entry.name, async () => {
        const scene = await openScene(pg, redis);
        const row: Row = { topology, entry: entry.name, result: "FAIL", recoverMs: null, checked: 0 };
        rows.push(row);
        try {
          const outcome = await entry.run!(scene);
          row.recoverMs = outcome.recoverMs;
          const undeleted = await stopAllTicks(scene);
          const report = await checkInvariants({
            store: scene.store,
            receiver: scene.receiver,
            paused: outcome.paused,
            everyMs: TICK_MS,
            controlActions: outcome.controlActions,
          });
          row.checked = report.checked;
          const violations = [
            ...(outcome.violations ?? []),
            ...undeleted,
            ...report.violations,
            ...unexpectedExits(scene),
          ];
          row.result = violations.length ? "FAIL" : "holds";
          // A failure's evidence: what each process warned of, with the violations' times beside it.
          if (violations.length)
            for (const b of scene.bots)
              console.log(
                `process ${b.child.pid}:\n${b.logs
                  .filter((l) => Number(l.level ?? 30) >= 40)
                  .map((l) => JSON.stringify(l))
                  .join("\n")}`,
              );
          expect(violations).toEqual([]);
        } finally {
          await scene.close();
        }
      }, 180_000);
    }
  });
}
