import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createChatRouter } from "../../src/bot/surfaces/chat/router";
import type { ChatTransport } from "../../src/bot/surfaces/chat/types";
import { comingDay } from "../support/clock";
import { PROVIDERS } from "../support/databases";
import { createEscalationHarness, type EscalationHarness, MIN, makeWait } from "../support/escalation-harness";

const via: ChatTransport = { platform: "telegram", checkCredentials: async () => ({ ok: true, detail: "test" }) };
const TELEGRAM = { bob: "7000005", rita: "7000004", gina: "7000101" } as const;

describe.each(PROVIDERS)("/escalations on %s", (provider) => {
  const T0 = comingDay(8);
  let h: EscalationHarness;
  beforeEach(async () => {
    h = await createEscalationHarness(provider, T0);
    await makeWait(h.db, "review", T0);
  });
  afterEach(async () => h.close());

  it("lists what escalates to the caller, in words; others see nothing", async () => {
    const p = await h.start();
    const router = createChatRouter({ ctx: p.ctx });
    const ask = async (who: keyof typeof TELEGRAM) => {
      const reply = await router.command(
        {
          name: "escalations",
          text: "",
          actor: { platform: "telegram", userId: TELEGRAM[who] },
          channelId: TELEGRAM[who],
        },
        via,
      );
      return reply.kind === "text" ? reply.text : "";
    };
    expect(await ask("bob")).toBe("Nothing is escalating to you.");
    h.clock.set(new Date(T0.getTime() + 11 * MIN));
    await p.monitor.tick();
    const bob = await ask("bob");
    expect(bob).toContain("1 escalating:");
    expect(bob).toContain("review acme:r-esc-1:1:send-invoice (ops-agent): level 1, waiting since");
    expect(await ask("rita")).toBe("Nothing is escalating to you.");
    expect(await ask("gina")).toBe("Nothing is escalating to you."); // another tenant
  });
});
