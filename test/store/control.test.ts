import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { pauseAgent } from "../../src/bot/app/control/pause";
import { resumeAgent } from "../../src/bot/app/control/resume";
import { agentId, agentScope, tenantScope, userId } from "../../src/policy/ids";
import { NOT_RUNNING, sqlList } from "../../src/policy/states";
import { openStore } from "../../src/store/connection/client";
import { isUniqueViolation } from "../../src/store/connection/prisma-errors";
import { listAudit, readControl } from "../../src/store/control/change";
import { findAgent, findUserByIdentity, syncDirectory } from "../../src/store/directory/directory";
import { countHeldWork, countHeldWorkOf } from "../../src/store/held/counts";
import { planDelivery } from "../../src/store/outbox/plan";
import { exampleDirectory } from "../support/agent-stand-in";
import { PROVIDERS } from "../support/databases";
import { createHarness, EXAMPLE_CONFIG, type Harness } from "../support/harness";

describe.each(PROVIDERS)("control store on %s", (provider) => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness(provider);
  });
  afterEach(async () => h.close());

  const actors = async () => {
    const { db } = h.ctx.store;
    const agent = (await findAgent(db, "acme", "ops-agent"))!;
    const user = async (name: string) => (await db.user.findUnique({ where: { id: userId("acme", name) } }))!;
    return { agent, user };
  };

  it("syncs the directory idempotently and never resets a pause", async () => {
    const { agent, user } = await actors();
    await pauseAgent(h.ctx, { user: await user("alice"), agent, reason: "vacation", until: null });
    await syncDirectory(h.ctx.store, await exampleDirectory(EXAMPLE_CONFIG));
    const control = await readControl(h.ctx.store.db, agentScope(agent.id));
    expect(control).toMatchObject({ state: "PAUSED", holdLevel: "principal", reason: "vacation", setBy: "acme:alice" });
    expect(await h.ctx.store.db.agentRole.count({ where: { agentId: agent.id } })).toBe(3);
  });

  it("syncs a directory of 1,200 agents in chunks, and a changed agent's fields and roles on the next sync", async () => {
    const directory = await exampleDirectory(EXAMPLE_CONFIG);
    const tenant = directory.tenants.find((t) => t.id === "acme")!;
    const model = tenant.agents.find((a) => a.name === "ops-agent")!;
    for (let i = 0; i < 1_200; i++)
      tenant.agents.push({ ...model, name: `many-${i}`, reviewers: ["rita"], agentKeyHash: undefined });
    // A chunk of rows per statement: one statement per row took 10,000 agents past the transaction's 60 s.
    let statements = 0;
    const counting = await openStore(h.db.url, { onStatement: () => void statements++ });
    try {
      await syncDirectory(counting, directory);
    } finally {
      await counting.close();
    }
    expect(statements).toBeLessThan(200);
    const { db } = h.ctx.store;
    const many = { agentId: { startsWith: "acme:many-" } };
    expect(await db.agent.count({ where: { id: { startsWith: "acme:many-" } } })).toBe(1_200);
    expect(await db.agentRole.count({ where: { ...many, role: "reviewer" } })).toBe(1_200);
    expect(await db.control.count({ where: { ...many, state: "RUNNING" } })).toBe(1_200);

    const { user } = await actors();
    const paused = (await findAgent(db, "acme", "many-7"))!;
    await pauseAgent(h.ctx, { user: await user("alice"), agent: paused, reason: "kept", until: null });
    const changed = tenant.agents.find((a) => a.name === "many-3")!;
    changed.reviewers = ["bob"];
    changed.webhook = "http://127.0.0.1:1/changed";
    await syncDirectory(h.ctx.store, directory);
    expect((await findAgent(db, "acme", "many-3"))?.webhook).toBe("http://127.0.0.1:1/changed");
    const roles = await db.agentRole.findMany({ where: { agentId: "acme:many-3", role: "reviewer" } });
    expect(roles.map((r) => r.userId)).toEqual(["acme:bob"]);
    expect(await db.agentRole.count({ where: { ...many, role: "reviewer" } })).toBe(1_200);
    expect((await readControl(db, agentScope(paused.id)))?.state).toBe("PAUSED");
  });

  it("maps platform identities to one user of one tenant", async () => {
    const { db } = h.ctx.store;
    expect((await findUserByIdentity(db, "slack:T0ACME:U0ALICE"))?.id).toBe("acme:alice");
    expect((await findUserByIdentity(db, "telegram:7000101"))?.tenantId).toBe("globex");
    expect(await findUserByIdentity(db, "slack:T0GLOBEX:U0ALICE")).toBeNull();
  });

  it("writes an audit row for every attempt, refused ones included", async () => {
    const { agent, user } = await actors();
    await pauseAgent(h.ctx, { user: await user("ada"), agent, reason: "incident", until: null });
    await pauseAgent(h.ctx, { user: await user("mia"), agent, reason: "me too", until: null });
    const refused = await resumeAgent(h.ctx, { resumer: { kind: "user", user: await user("alice") }, agent });
    expect(refused.kind).toBe("creator_hold");
    const audit = await listAudit(h.ctx.store.db, agentScope(agent.id));
    expect(audit.map((a) => [a.action, a.actorId, a.outcome, a.reason])).toEqual([
      ["pause", "acme:ada", "paused", "incident"],
      ["pause", "acme:mia", "kept", "me too"],
      ["resume", "acme:alice", "creator_hold", null],
    ]);
    expect(refused.control).toMatchObject({ state: "PAUSED", holdLevel: "admin", reason: "incident", setBy: "ada" });
  });

  it("lets concurrent pauses by different roles settle on the highest hold", async () => {
    const { agent, user } = await actors();
    const people = await Promise.all(["mia", "sam", "alice", "ada", "rita"].map(user));
    await Promise.all(people.map((u) => pauseAgent(h.ctx, { user: u, agent, reason: `by ${u.name}`, until: null })));
    const control = await readControl(h.ctx.store.db, agentScope(agent.id));
    expect(control).toMatchObject({ state: "PAUSED", holdLevel: "admin", setBy: "acme:ada" });
    expect(await h.ctx.store.db.controlAudit.count()).toBe(5);
  });

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
    await db.control.update({
      where: { scope: agentScope(agentId("acme", "ops-agent")) },
      data: { state: "DRAINING" },
    });
    const sql = await db.$queryRawUnsafe<Array<{ scope: string }>>(
      `SELECT "scope" FROM "Control" WHERE "state" IN ${sqlList(NOT_RUNNING)} ORDER BY "scope"`,
    );
    const prisma = await db.control.findMany({
      where: { state: { in: NOT_RUNNING } },
      select: { scope: true },
      orderBy: { scope: "asc" },
    });
    expect(sql.map((r) => r.scope)).toEqual(prisma.map((r) => r.scope));
    expect(prisma.map((r) => r.scope).sort()).toEqual(
      [agentScope(agentId("acme", "ops-agent")), tenantScope("globex")].sort(),
    );
  });

  it("counts many agents' held work at once as it counts each one's", async () => {
    const { db } = h.ctx.store;
    const delivery = {
      kind: "action",
      tenantId: "acme",
      agentId: agentId("acme", "ops-agent"),
      destination: "http://127.0.0.1:9/x",
    } as const;
    for (const id of ["vocabulary-1", "vocabulary-2"])
      await planDelivery(h.ctx.store, { ...delivery, id, contract: "none", payload: {} }, new Date());
    const agents = await db.agent.findMany({ select: { id: true } });
    const many = await countHeldWorkOf(
      h.ctx.store,
      agents.map((a) => a.id),
    );
    for (const agent of agents) expect(many.get(agent.id)).toEqual(await countHeldWork(h.ctx.store, agent.id));
    expect(many.get(agentId("acme", "ops-agent"))?.outboxActions).toBe(2);
  });
});
