import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { pauseTenant } from "../../src/bot/app/control/tenant-control";
import { agentId } from "../../src/policy/ids";
import { openStore } from "../../src/store/connection/client";
import { checkGate } from "../../src/store/control/gate";
import { PROVIDERS } from "../support/databases";
import { createHarness, type Harness } from "../support/harness";

const OPS = agentId("acme", "ops-agent");

describe.each(PROVIDERS)("the fail-closed gate on %s", (provider) => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness(provider);
  });
  afterEach(async () => h.close());

  it("lets a running agent work, and holds it while its tenant is paused", async () => {
    expect(await (await checkGate(h.ctx.store, OPS, "acme")).held).toBe(false);
    const ada = (await h.ctx.store.db.user.findUnique({ where: { id: "acme:ada" } }))!;
    await pauseTenant(h.ctx, ada, "freeze", null);
    expect(await checkGate(h.ctx.store, OPS, "acme")).toEqual({ held: true, because: "tenant_paused" });
    expect(await (await checkGate(h.ctx.store, agentId("globex", "globex-agent"), "globex")).held).toBe(false);
  });

  it("holds an agent that has no control record", async () => {
    expect(await checkGate(h.ctx.store, agentId("acme", "ghost"), "acme")).toEqual({
      held: true,
      because: "unreadable",
    });
  });

  it("holds work when the control table is gone", async () => {
    await h.ctx.store.db.$executeRawUnsafe('DROP TABLE "Control"');
    expect(await checkGate(h.ctx.store, OPS, "acme")).toEqual({ held: true, because: "unreadable" });
  });
});

describe("the fail-closed gate with no database", () => {
  it("holds work when PostgreSQL is unreachable", async () => {
    const store = await openStore("postgresql://postgres@127.0.0.1:1/none");
    try {
      expect(await checkGate(store, OPS, "acme")).toEqual({ held: true, because: "unreadable" });
    } finally {
      await store.close().catch(() => {});
    }
  });

  it("holds work when the SQLite file cannot be opened", async () => {
    const store = await openStore("file:/nonexistent-dir/holdfast.db");
    try {
      expect(await (await checkGate(store, OPS, "acme")).held).toBe(true);
    } finally {
      await store.close().catch(() => {});
    }
  });
});
