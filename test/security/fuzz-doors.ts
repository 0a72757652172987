import fc from "fast-check";
import {
  buttonInteraction,
  type DiscordKeyPair,
  discordMessage,
  discordUser,
  makeDiscordKeyPair,
  slashCommandInteraction,
} from "../fakes/discord-fake";
import { blockActionsPayload, slashCommandBody } from "../fakes/slack-fake";
import { callbackQueryUpdate, commandUpdate, textMessageUpdate } from "../fakes/telegram-fake";
import type { Answer, Doors } from "./doors-harness";
import {
  bodyText,
  buttonValue,
  DISCORD_GUILDS,
  DISCORD_USERS,
  readOnlyCommand,
  SLACK_USERS,
  TELEGRAM_USERS,
  text,
} from "./fuzz-inputs";

// One generator per chat door. Each yields a function that sends the request to a running set of doors.

export type Send = (d: Doors) => Promise<Answer | null>;

/** A Send that fast-check prints as the request it makes, so a counterexample can be read. */
const described = (what: unknown, send: Send): Send =>
  Object.assign(send, { [fc.toStringMethod]: () => JSON.stringify(what).slice(0, 2_000) });

const anyCommand = fc.constantFrom("pause", "resume", "status", "approvals", "x");
const FORGED_DISCORD: DiscordKeyPair = makeDiscordKeyPair();
let seq = 0;
const snowflake = () => String(1_300_000_000_000_000_000n + BigInt(++seq));

/** Who in which Slack team: the directory knows ada, alice, mia, rita in T0ACME and gina in T0GLOBEX. */
const slackKnown = (user: string, team: string) =>
  (team === "T0ACME" && !["U0GINA", "U0NOBODY"].includes(user)) || (team === "T0GLOBEX" && user === "U0GINA");

const slackSigning = fc.constantFrom("valid", "valid", "valid", "valid", "forged", "replayed", "missing");

export function slackRequests(approveToken: string, responseUrl: string): fc.Arbitrary<Send> {
  const who = fc.record({
    user: fc.constantFrom(...SLACK_USERS),
    team: fc.constantFrom("T0ACME", "T0GLOBEX", "T0NOPE", ""),
  });
  const command = who.chain(({ user, team }) =>
    fc
      .record({ name: slackKnown(user, team) ? readOnlyCommand : anyCommand, text, channel: text })
      .map(({ name, text: args, channel }) => ({
        body: slashCommandBody({
          command: `/${name}`,
          text: args,
          user_id: user,
          team_id: team,
          channel_id: channel,
          response_url: responseUrl,
        }),
        contentType: "application/x-www-form-urlencoded",
      })),
  );
  // Rita is the only reviewer: her clicks use made-up tokens, so no click can decide the run.
  const click = fc
    .record({ user: fc.constantFrom(...SLACK_USERS), team: fc.constantFrom("T0ACME", "T0GLOBEX", "T0NOPE") })
    .chain(({ user, team }) =>
      (user === "U0RITA" ? buttonValue("not-a-token") : buttonValue(approveToken)).map((value) => {
        const at = value.lastIndexOf(":");
        const payload = blockActionsPayload({
          action_id: at < 0 ? value : value.slice(0, at),
          value: at < 0 ? "" : value.slice(at + 1),
          user: { id: user, team_id: team },
          team: { id: team },
          response_url: responseUrl,
          trigger_id: snowflake(),
        });
        return {
          body: new URLSearchParams({ payload: JSON.stringify(payload) }).toString(),
          contentType: "application/x-www-form-urlencoded",
        };
      }),
    );
  const raw = fc.record({
    body: bodyText,
    contentType: fc.constantFrom("application/json", "application/x-www-form-urlencoded", "text/plain"),
  });
  return fc.record({ request: fc.oneof(command, click, raw), signing: slackSigning }).map(
    ({ request, signing }): Send =>
      described({ slack: request, signing }, (d) =>
        d.slackPost(request.body, request.contentType, {
          ...(signing === "forged" && { secret: "not-the-signing-secret" }),
          ...(signing === "replayed" && { timestamp: Math.floor(Date.now() / 1000) - 600 }),
          ...(signing === "missing" && { headers: { "x-slack-signature": "", "x-slack-request-timestamp": "" } }),
        }),
      ),
  );
}

const TELEGRAM_KNOWN = new Set<number>([7000001, 7000002, 7000006, 7000101]);

export function telegramRequests(approveToken: string): fc.Arbitrary<Send> {
  const from = fc.constantFrom(...TELEGRAM_USERS);
  const update = fc.oneof(
    from.chain((fromId) =>
      fc
        .record({ name: TELEGRAM_KNOWN.has(fromId) ? readOnlyCommand : anyCommand, args: text })
        .map(({ name, args }) => JSON.stringify(commandUpdate({ fromId, text: `/${name} ${args}` }))),
    ),
    fc
      .record({ fromId: from, data: buttonValue(approveToken) })
      .map((fields) => JSON.stringify(callbackQueryUpdate(fields))),
    // Plain messages only from people the directory does not know (a known person's would reach the agent).
    text.map((t) => JSON.stringify(textMessageUpdate({ fromId: 9999999, text: t }))),
    bodyText,
  );
  return fc
    .record({ body: update, secret: fc.constantFrom(undefined, undefined, undefined, "wrong-secret", "") })
    .map(({ body, secret }): Send => described({ telegram: body, secret }, (d) => d.telegramPost(body, secret)));
}

/** A Discord interaction: slash commands (read-only for people the directory knows), clicks, garbage. */
function discordInteraction(approveToken: string): fc.Arbitrary<unknown> {
  const who = fc.record({
    userId: fc.constantFrom(...DISCORD_USERS),
    guildId: fc.constantFrom(...DISCORD_GUILDS, undefined),
  });
  const known = (u: string, g?: string) =>
    g === undefined ||
    (g === DISCORD_GUILDS[0] && u !== "800000000000000101" && u !== "800000000000099999") ||
    (g === DISCORD_GUILDS[1] && u === "800000000000000101");
  return fc.oneof(
    who.chain(({ userId, guildId }) =>
      fc.record({ name: known(userId, guildId) ? readOnlyCommand : anyCommand, args: text }).map(({ name, args }) => {
        const id = snowflake();
        return slashCommandInteraction({ id, token: `tok-${id}`, userId, guildId, name, options: { text: args } });
      }),
    ),
    who.chain(({ userId, guildId }) =>
      buttonValue(approveToken).map((customId) => {
        const id = snowflake();
        return buttonInteraction({ id, token: `tok-${id}`, userId, guildId, customId: customId.slice(0, 100) });
      }),
    ),
    fc.jsonValue({ maxDepth: 3 }),
    fc.record({ type: fc.integer({ min: -1, max: 6 }), data: fc.jsonValue({ maxDepth: 2 }), id: text }),
  );
}

export function discordHttpRequests(approveToken: string): fc.Arbitrary<Send> {
  const body = fc.oneof(
    discordInteraction(approveToken).map((v) => JSON.stringify(v) ?? "null"),
    bodyText,
  );
  const signing = fc.constantFrom("valid", "valid", "valid", "forged", "replayed");
  return fc
    .record({ body, signing })
    .map(
      ({ body: b, signing: s }): Send =>
        described({ discord: b, signing: s }, (d) =>
          d.discordPost(
            b,
            s === "forged" ? FORGED_DISCORD : d.discordKeys,
            s === "replayed" ? String(Math.floor(Date.now() / 1000) - 3600) : undefined,
          ),
        ),
    );
}

export interface GatewayDispatch {
  event: string;
  data: unknown;
}

export function gatewayDispatches(approveToken: string): fc.Arbitrary<GatewayDispatch> {
  const garbage = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.constant(null));
  const message = fc
    .record({ content: text, guild: fc.constantFrom(...DISCORD_GUILDS, undefined) })
    .map(({ content, guild }) => ({
      ...discordMessage({ author: discordUser("800000000000099999", "nobody"), content }),
      ...(guild ? { guild_id: guild } : { channel_type: 1 }),
    }));
  return fc.oneof(
    discordInteraction(approveToken).map((data) => ({ event: "INTERACTION_CREATE", data })),
    garbage.map((data) => ({ event: "INTERACTION_CREATE", data })),
    message.map((data) => ({ event: "MESSAGE_CREATE", data })),
    fc
      .record({
        event: fc.constantFrom(
          "MESSAGE_CREATE",
          "MESSAGE_UPDATE",
          "MESSAGE_DELETE",
          "CHANNEL_CREATE",
          "CHANNEL_DELETE",
          "GUILD_CREATE",
          "GUILD_DELETE",
          "GUILD_MEMBER_ADD",
          "TYPING_START",
          "PRESENCE_UPDATE",
          "NOT_AN_EVENT",
        ),
        data: garbage,
      })
      .map(({ event, data }) => ({ event, data })),
  );
}
