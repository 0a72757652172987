import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentId, agentScope, tenantScope } from "../../src/policy/ids";
import { NOT_RUNNING, sqlList } from "../../src/policy/states";
import { isUniqueViolation } from "../../src/store/connection/prisma-errors";
import { countHeldWork, countHeldWorkOf } from "../../src/store/held/counts";
import { planDelivery } from "../../src/store/outbox/plan";
import { PROVIDERS } from "../support/databases";
import { createHarness, type Harness } from "../support/harness";

const OPS = agentId("acme", "ops-agent");

describe.each(PROVIDERS)("the store's shared vocabulary on %s", (provider) => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness(provider);
  });
  afterAll(async () => h.close());

  it("names a unique violation, and nothing else, as one", async () => {
    const { db } = h.ctx.store;
    await db.deploymentSetting.create({ data: { key: "vocabulary.test", value: "1" } });
    const duplicate = await db.deploymentSetting
      .create({ data: { key: "vocabulary.test", value: "2" } })
      .catch((e) => e);
    expect(isUniqueViolation(duplicate)).toBe(true);
    const missing = await db.deploymentSetting
      .update({ where: { key: "absent" }, data: { value: "x" } })
      .catch((e) => e);
    expect(isUniqueViolation(missing)).toBe(false);
    expect(isUniqueViolation(new Error("P2002"))).toBe(false);
    expect(isUniqueViolation(null)).toBe(false);
  });

  it("reads the same records through a state set in SQL text as through a where clause", async () => {
    const { db } = h.ctx.store;
    await db.control.update({ where: { scope: tenantScope("globex") }, data: { state: "PAUSED" } });
    await db.control.update({ where: { scope: agentScope(OPS) }, data: { state: "DRAINING" } });
    const sql = await db.$queryRawUnsafe<Array<{ scope: string }>>(
      `SELECT "scope" FROM "Control" WHERE "state" IN ${sqlList(NOT_RUNNING)} ORDER BY "scope"`,
    );
    const prisma = await db.control.findMany({
      where: { state: { in: NOT_RUNNING } },
      select: { scope: true },
      orderBy: { scope: "asc" },
    });
    expect(sql.map((r) => r.scope)).toEqual(prisma.map((r) => r.scope));
    expect(prisma.map((r) => r.scope).sort()).toEqual([agentScope(OPS), tenantScope("globex")].sort());
  });

  it("counts many agents' held work at once as it counts each one's", async () => {
    const { db } = h.ctx.store;
    const delivery = { kind: "action", tenantId: "acme", agentId: OPS, destination: "http://127.0.0.1:9/x" } as const;
    for (const id of ["vocabulary-1", "vocabulary-2"])
      await planDelivery(h.ctx.store, { ...delivery, id, contract: "none", payload: {} }, new Date());
    const agents = await db.agent.findMany({ select: { id: true } });
    const many = await countHeldWorkOf(
      db,
      agents.map((a) => a.id),
    );
    for (const agent of agents) expect(many.get(agent.id)).toEqual(await countHeldWork(db, agent.id));
    expect(many.get(OPS)?.outboxActions).toBe(2);
  });
});
