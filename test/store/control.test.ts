import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { pauseAgent } from "../../src/bot/app/control/pause";
import { resumeAgent } from "../../src/bot/app/control/resume";
import { loadDirectoryFile } from "../../src/bot/main/config/directory-file";
import { agentScope, userId } from "../../src/policy/ids";
import { listAudit, readControl } from "../../src/store/control/change";
import { findAgent, findUserByIdentity, syncDirectory } from "../../src/store/directory/directory";
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
    await syncDirectory(h.ctx.store, loadDirectoryFile(EXAMPLE_CONFIG));
    const control = await readControl(h.ctx.store.db, agentScope(agent.id));
    expect(control).toMatchObject({ state: "PAUSED", holdLevel: "principal", reason: "vacation", setBy: "acme:alice" });
    expect(await h.ctx.store.db.agentRole.count({ where: { agentId: agent.id } })).toBe(3);
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
});
