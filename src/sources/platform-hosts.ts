// Which hosts are each platform's own, by the same predicates its URL recognition uses. An operator's
// cookies for a platform (UNFURL_COOKIES_<PLATFORM>) are kept only when their domain is one of these,
// and sent only to requests for one of these: never to a CDN, a short-link target or another site.
import { isFacebookHost } from './facebook/ids.js';
import { isInstagramHost } from './instagram/ids.js';
import type { PlatformName } from './platform.js';
import { isTikTokHost } from './tiktok/ids.js';
import { isXHost } from './x/ids.js';
import { isPlatformHost } from './youtube/ids.js';

export const PLATFORM_HOSTS = {
  youtube: isPlatformHost,
  tiktok: isTikTokHost,
  instagram: isInstagramHost,
  x: isXHost,
  facebook: isFacebookHost,
} as const satisfies Partial<Record<PlatformName, (host: string) => boolean>>;

export type CookiePlatform = keyof typeof PLATFORM_HOSTS;
