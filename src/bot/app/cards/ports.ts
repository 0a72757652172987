import type { Platform } from "../../../policy/platforms";
// What the card use cases need of a chat surface, declared here so that the app never imports a surface
// (test/architecture/layers.test.ts). The chat surface's publishers implement `CardPoster`; `C` is the
// surface's card, which the app passes on (and stores, for pings) without looking inside it.

/** The platforms a card can go to: the chat surface's `Platform`. */
/** A card goes to any chat platform (policy/platforms.ts). */
export type CardPlatform = Platform;

/** A posted message. */
export interface PostedRef {
  channelId: string;
  messageId: string;
}

/** One platform's way to show cards. */
export interface CardPoster<C> {
  /** The channel of a direct conversation with this platform user (opened if needed). */
  openDirect(platformUserId: string): Promise<string>;
  post(channelId: string, card: C): Promise<PostedRef>;
  edit(ref: PostedRef, card: C): Promise<void>;
}

/** The enabled platforms' posters; a platform without one shows no cards. */
export type CardPosters<C> = Partial<Record<CardPlatform, CardPoster<C>>>;
