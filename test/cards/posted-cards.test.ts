import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CardPoster } from "../../src/bot/app/cards/ports";
import { postCards } from "../../src/bot/app/cards/post-card";
import { agentId } from "../../src/policy/ids";
import { findChatButton } from "../../src/store/chat/buttons";
import {
  bindCardButtons,
  type CardSubject,
  claimPostedCard,
  recordPostedCard,
  releasePostedCard,
} from "../../src/store/chat/posted-cards";
import { PROVIDERS } from "../support/databases";
import { createHarness, type Harness } from "../support/harness";

const OPS = agentId("acme", "ops-agent");
const APPROVAL: CardSubject = { kind: "approval", runId: "run-1", version: 2 };
const PING: CardSubject = { kind: "ping", escalationId: "esc-1", level: 1, repeat: 0, content: { title: "t" } };
const PLACE = { platform: "slack", channelId: "C1" };

/** A platform whose first `failures` posts fail, as a platform outage would. */
function flakyPoster(failures: number) {
  const posted: Array<{ channelId: string; card: string }> = [];
  let calls = 0;
  const poster: CardPoster<string> = {
    openDirect: async (user) => `dm-${user}`,
    async post(channelId, card) {
      if (++calls <= failures) throw new Error("platform down");
      posted.push({ channelId, card });
      return { channelId, messageId: `m${calls}` };
    },
    edit: async () => {},
  };
  return { poster, posted };
}

describe.each(PROVIDERS)("one posted-card protocol for approval cards and pings on %s", (provider) => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness(provider);
  });
  afterEach(async () => h.close());

  it.each([APPROVAL, PING])(
    "claims a $kind card once per place, and a released claim can be taken again",
    async (subject) => {
      const { db } = h.ctx.store;
      const claim = await claimPostedCard(db, subject, PLACE);
      expect(claim).toMatchObject({ kind: subject.kind });
      expect(await claimPostedCard(db, subject, PLACE)).toBeNull();
      expect(await claimPostedCard(db, subject, { ...PLACE, channelId: "C2" })).not.toBeNull();
      await releasePostedCard(db, claim!);
      const again = await claimPostedCard(db, subject, PLACE);
      expect(again).not.toBeNull();
      await recordPostedCard(db, again!, "m1");
      await releasePostedCard(db, again!); // a posted card is never given back
      expect(await claimPostedCard(db, subject, PLACE)).toBeNull();
    },
  );

  it("binds a card's buttons to one payload, a token per action", async () => {
    const payload = { runId: "run-1", version: 2, digest: "sha256:abc" };
    const tokens = await bindCardButtons(
      h.ctx.store.db,
      { tenantId: "acme", agentId: OPS },
      { approve: "run.approve", deny: "run.deny" },
      payload,
    );
    expect(tokens.approve).not.toBe(tokens.deny);
    expect(await findChatButton(h.ctx.store, tokens.approve)).toMatchObject({ action: "run.approve", payload });
    expect(await findChatButton(h.ctx.store, tokens.deny)).toMatchObject({ action: "run.deny", payload });
  });

  it("posts each target once: a failed post gives its claim back, the next pass posts it, a third posts nothing", async () => {
    const { poster, posted } = flakyPoster(1);
    const targets = [
      { platform: "slack" as const, channelId: "C1" },
      { platform: "slack" as const, channelId: "C2" },
    ];
    const failed: string[] = [];
    let renders = 0;
    const pass = () =>
      postCards(
        h.ctx,
        PING,
        targets,
        { slack: poster },
        async () => `card ${++renders}`,
        (target) => failed.push(target.channelId),
      );
    await pass();
    expect(failed).toEqual(["C1"]);
    expect(posted).toEqual([{ channelId: "C2", card: "card 1" }]);
    await pass();
    await pass();
    expect(posted.map((p) => p.channelId)).toEqual(["C2", "C1"]);
    expect(renders).toBe(2); // once per pass that won a claim; the third won none
  });
});
