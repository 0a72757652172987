import type { Db } from "../connection/client";
import { isUniqueViolation } from "../connection/prisma-errors";
import { createChatButtons, newButtonId } from "./buttons";

/** Where one card goes: a channel (or a DM) on one platform. */
export interface CardPlace {
  platform: string;
  channelId: string;
}

/**
 * What a posted card is a view of: one packet version of a run (an approval card), or one step of an
 * escalation (a ping, whose content is kept so that it can be settled later without rendering it again).
 */
export type CardSubject =
  | { kind: "approval"; runId: string; version: number }
  | { kind: "ping"; escalationId: string; level: number; repeat: number; content: unknown };

/** A claimed card: which table holds it, and its row. */
export interface CardClaim {
  kind: CardSubject["kind"];
  id: number;
}

/**
 * Claims the right to post one card of `subject` at `place`: the claim's row (messageId null until posted),
 * or null when that card is claimed already (posted, or being posted by another process), so it is never
 * posted twice. The unique key of each table decides: (run, version, platform, channel) or (escalation,
 * level, repeat, platform, channel).
 */
export async function claimPostedCard(db: Db, subject: CardSubject, place: CardPlace): Promise<CardClaim | null> {
  try {
    if (subject.kind === "approval") {
      const { runId, version } = subject;
      const row = await db.chatCard.create({ data: { runId, version, ...place, shows: "open" } });
      return { kind: "approval", id: row.id };
    }
    const { escalationId, level, repeat, content } = subject;
    const row = await db.escalationCard.create({
      data: { escalationId, level, repeat, ...place, content: JSON.stringify(content) },
    });
    return { kind: "ping", id: row.id };
  } catch (error) {
    if (isUniqueViolation(error)) return null;
    throw error;
  }
}

/** The claim became a message: later syncs edit it instead of posting again. */
export async function recordPostedCard(db: Db, claim: CardClaim, messageId: string): Promise<void> {
  const update = { where: { id: claim.id }, data: { messageId } };
  if (claim.kind === "approval") await db.chatCard.update(update);
  else await db.escalationCard.update(update);
}

/** A post that failed (or a claim a crash left) gives its claim back, so a later sync may try again. */
export async function releasePostedCard(db: Db, claim: CardClaim): Promise<void> {
  const unposted = { where: { id: claim.id, messageId: null } };
  if (claim.kind === "approval") await db.chatCard.deleteMany(unposted);
  else await db.escalationCard.deleteMany(unposted);
}

/**
 * Binds one card's buttons: a fresh unguessable token per action, each button carrying the same payload (what
 * the card is about, e.g. the run, version and FULL digest of an approval). `actions` maps a name to the
 * button's action, e.g. `{ approve: "run.approve", deny: "run.deny" }`; the result maps the name to its token.
 */
export async function bindCardButtons<Actions extends Record<string, string>>(
  db: Db,
  owner: { tenantId: string; agentId: string },
  actions: Actions,
  payload: Record<string, unknown>,
): Promise<{ [Name in keyof Actions]: string }> {
  const named = Object.entries(actions).map(([name, action]) => ({ name, action, id: newButtonId() }));
  await createChatButtons(
    db,
    named.map(({ action, id }) => ({ ...owner, id, action, payload, requestedBy: null })),
  );
  return Object.fromEntries(named.map(({ name, id }) => [name, id])) as { [Name in keyof Actions]: string };
}
