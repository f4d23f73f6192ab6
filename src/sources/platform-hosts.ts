// Which hosts are each platform's own, by the same predicates its URL recognition uses (each folder's
// identity.ts). An operator's cookies for a platform (UNFURL_COOKIES_<PLATFORM>) are kept only when their
// domain is one of these, and sent only to requests for one of these: never to a CDN, a short-link target
// or another site. Derived from the platforms' identities (platform-name.ts): a platform with a host
// predicate takes cookies.
import { PLATFORM_IDENTITIES } from './platform-name.js';

type WithHost = Extract<
  (typeof PLATFORM_IDENTITIES)[number],
  { readonly ownsHost: (host: string) => boolean }
>;

/** The platforms that take operator cookies: those with hosts of their own. */
export type CookiePlatform = WithHost['name'];

/** Each cookie platform's host predicate, keyed by its name, in the identities' order. */
export const PLATFORM_HOSTS = Object.fromEntries(
  PLATFORM_IDENTITIES.flatMap((p) => (p.ownsHost ? [[p.name, p.ownsHost] as const] : [])),
) as { readonly [P in CookiePlatform]: (host: string) => boolean };
