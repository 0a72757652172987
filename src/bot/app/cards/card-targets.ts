import { listChatIdentities } from "../../../store/directory/identities";
import type { HandlerContext } from "../context";
import type { KnownAgent } from "../records";
import type { CardPlatform, CardPoster, CardPosters } from "./ports";

/** Per platform, the channel an agent's approval cards go to instead of each reviewer's DM. */
export type ReviewChannels = Partial<Record<CardPlatform, string>>;

export interface CardTarget {
  platform: CardPlatform;
  channelId: string;
}

/**
 * Wraps each poster's `openDirect` with a memory of the channels already opened: a DM channel does not
 * change, and re-syncing a waiting run should cost database reads, not one platform call per reviewer.
 */
export function rememberDirectChannels<P extends CardPoster<never>>(
  posters: Partial<Record<CardPlatform, P>>,
): Partial<Record<CardPlatform, P>> {
  const known = new Map<string, string>();
  return Object.fromEntries(
    Object.entries(posters).map(([platform, poster]) => [
      platform,
      {
        ...poster,
        async openDirect(platformUserId: string) {
          const key = `${platform}:${platformUserId}`;
          const channel = known.get(key) ?? (await poster.openDirect(platformUserId));
          known.set(key, channel);
          return channel;
        },
      },
    ]),
  ) as Partial<Record<CardPlatform, P>>;
}

/** Per platform, the configured channel (review or escalation) as a string id. */
export const channelsOf = (configured: Record<string, string>): ReviewChannels =>
  Object.fromEntries(Object.entries(configured).map(([platform, id]) => [platform, String(id)]));

export const reviewChannelsOf = (agent: KnownAgent): ReviewChannels => channelsOf(agent.settings.reviewChannel);

/**
 * Where one card goes: on each enabled platform, the configured channel if there is one (one card, seen by
 * all its readers), otherwise a DM to each reader who has an identity there. Approval cards pass the
 * agent's review channels and its reviewers; escalation pings its escalation channels and their targets.
 */
export async function cardTargets<C>(
  ctx: HandlerContext,
  channels: ReviewChannels,
  readerIds: readonly string[],
  posters: CardPosters<C>,
  /** A DM that cannot be opened skips that one reader on that platform, never the others. */
  onUnreachable: (platform: CardPlatform, platformUserId: string, error: Error) => void,
): Promise<CardTarget[]> {
  const identities = await listChatIdentities(ctx.store.db, readerIds);
  const targets: CardTarget[] = [];
  for (const [platform, poster] of Object.entries(posters) as Array<[CardPlatform, CardPoster<C>]>) {
    const channel = channels[platform];
    if (channel) {
      targets.push({ platform, channelId: channel });
      continue;
    }
    for (const identity of identities.filter((i) => i.platform === platform)) {
      await poster.openDirect(identity.platformUserId).then(
        (channelId) => targets.push({ platform, channelId }),
        (error: Error) => onUnreachable(platform, identity.platformUserId, error),
      );
    }
  }
  return targets;
}
