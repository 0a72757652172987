import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentScope } from "../../src/policy/ids";
import { readControl } from "../../src/store/control/change";
import { syncDirectory } from "../../src/store/directory/directory";
import { exampleDirectory } from "../support/agent-stand-in";
import { createConsoleHarness, fromHtml } from "../support/console-harness";
import { PROVIDERS } from "../support/databases";
import { type EffectReceiver, startEffectReceiver } from "../support/effect-receiver";
import { EXAMPLE_CONFIG } from "../support/harness";

const OPS = agentScope("acme:ops-agent");

// The console's resume page is the chat card (one flow): the checklist with its marks, and the override field.
describe.each(PROVIDERS)("the console's resume checklist on %s", (provider) => {
  let receiver: EffectReceiver;
  beforeAll(async () => {
    receiver = await startEffectReceiver();
    receiver.answerReadiness = () => ({ ready: false, checkpoint: "START" });
  });
  afterAll(() => receiver.close());

  it("shows each check with its mark; Confirm is refused on a fail, Resume anyway with a reason releases", async () => {
    const h = await createConsoleHarness(provider);
    try {
      const directory = await exampleDirectory(EXAMPLE_CONFIG);
      directory.tenants
        .find((t) => t.id === "acme")!
        .agents.find((a) => a.name === "ops-agent")!.webhook = `${receiver.url}/agent`;
      await syncDirectory(h.ctx.store, directory);
      const state = async () => (await readControl(h.ctx.store.db, OPS))!.state;
      const alice = h.browser();
      const token = await alice.signIn("alice");
      await alice.post("/agents/ops-agent/pause", { reason: "vacation", _csrf: token });
      const page = await alice.post("/agents/ops-agent/resume", { _csrf: token });
      const text = fromHtml(page.body);
      expect(text).toContain("[FAIL] checkpoint: the agent says it is not ready");
      expect(text).toContain("[ok] pending:");
      expect(text).toContain("[ok] actor: alice (principal)");
      expect(page.body).toContain('name="reason"');
      const button = (action: string) => new RegExp(`name="button" value="(${action}:[\\w-]+)"`).exec(page.body)![1]!;

      const refused = await alice.post("/agents/ops-agent/card", { button: button("resume\\.confirm"), _csrf: token });
      expect(fromHtml(refused.body)).toContain("(checklist_failed)");
      expect(await state()).toBe("PAUSED");

      const anyway = await alice.post("/agents/ops-agent/card", {
        button: button("resume\\.override"),
        reason: "restarted the agent by hand",
        _csrf: token,
      });
      expect(fromHtml(anyway.body)).toContain("Resumed by alice");
      expect(await state()).toBe("RUNNING");
      const audit = await h.ctx.store.db.controlAudit.findMany({ where: { scope: OPS, outcome: "resumed" } });
      expect(audit.map((a) => a.reason?.startsWith("override: restarted the agent by hand"))).toEqual([true]);
    } finally {
      await h.close();
    }
  });
});
