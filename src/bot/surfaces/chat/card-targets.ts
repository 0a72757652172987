import type { Db } from "../../../store/connection/client";
import { listChatIdentities } from "../../../store/directory/identities";
import type { KnownAgent } from "../../app/records";
import type { CardPublisher, Platform } from "./types";

/** Per platform, the channel an agent's approval cards go to instead of each reviewer's DM. */
export type ReviewChannels = Partial<Record<Platform, string>>;

export interface CardTarget {
  platform: Platform;
  channelId: string;
}

/**
 * Wraps each publisher's `openDirect` with a memory of the channels already opened: a DM channel does not
 * change, and re-syncing a waiting run should cost database reads, not one platform call per reviewer.
 */
export function rememberDirectChannels(publishers: Partial<Record<Platform, CardPublisher>>) {
  const known = new Map<string, string>();
  return Object.fromEntries(
    Object.entries(publishers).map(([platform, publisher]) => [
      platform,
      {
        ...publisher,
        async openDirect(platformUserId: string) {
          const key = `${platform}:${platformUserId}`;
          const channel = known.get(key) ?? (await publisher.openDirect(platformUserId));
          known.set(key, channel);
          return channel;
        },
      },
    ]),
  ) as Partial<Record<Platform, CardPublisher>>;
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
export async function cardTargets(
  db: Db,
  channels: ReviewChannels,
  reviewerIds: readonly string[],
  publishers: Partial<Record<Platform, CardPublisher>>,
  /** A DM that cannot be opened skips that one reviewer on that platform, never the others. */
  onUnreachable: (platform: Platform, platformUserId: string, error: Error) => void,
): Promise<CardTarget[]> {
  const identities = await listChatIdentities(db, reviewerIds);
  const targets: CardTarget[] = [];
  for (const [platform, publisher] of Object.entries(publishers) as Array<[Platform, CardPublisher]>) {
    const channel = channels[platform];
    if (channel) {
      targets.push({ platform, channelId: channel });
      continue;
    }
    for (const identity of identities.filter((i) => i.platform === platform)) {
      await publisher.openDirect(identity.platformUserId).then(
        (channelId) => targets.push({ platform, channelId }),
        (error: Error) => onUnreachable(platform, identity.platformUserId, error),
      );
    }
  }
  return targets;
}
