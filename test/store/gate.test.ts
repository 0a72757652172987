import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { pauseTenant } from "../../src/bot/handlers/tenant-control";
import { openStore } from "../../src/store/client";
import { agentId } from "../../src/store/directory";
import { checkGate, isHeld } from "../../src/store/gate";
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
    expect(await isHeld(h.ctx.store.db, OPS, "acme")).toBe(false);
    const ada = (await h.ctx.store.db.user.findUnique({ where: { id: "acme:ada" } }))!;
    await pauseTenant(h.ctx, ada, "freeze", null);
    expect(await checkGate(h.ctx.store.db, OPS, "acme")).toEqual({ held: true, because: "tenant_paused" });
    expect(await isHeld(h.ctx.store.db, agentId("globex", "globex-agent"), "globex")).toBe(false);
  });

  it("holds an agent that has no control record", async () => {
    expect(await checkGate(h.ctx.store.db, agentId("acme", "ghost"), "acme")).toEqual({
      held: true,
      because: "unreadable",
    });
  });

  it("holds work when the control table is gone", async () => {
    await h.ctx.store.db.$executeRawUnsafe('DROP TABLE "Control"');
    expect(await checkGate(h.ctx.store.db, OPS, "acme")).toEqual({ held: true, because: "unreadable" });
  });
});

describe("the fail-closed gate with no database", () => {
  it("holds work when PostgreSQL is unreachable", async () => {
    const store = openStore("postgresql://postgres@127.0.0.1:1/none");
    try {
      expect(await checkGate(store.db, OPS, "acme")).toEqual({ held: true, because: "unreadable" });
    } finally {
      await store.close().catch(() => {});
    }
  });

  it("holds work when the SQLite file cannot be opened", async () => {
    const store = openStore("file:/nonexistent-dir/holdfast.db");
    try {
      expect(await isHeld(store.db, OPS, "acme")).toBe(true);
    } finally {
      await store.close().catch(() => {});
    }
  });
});
