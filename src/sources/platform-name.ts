// What each platform is, before any platform object exists: its identity, declared once in its folder
// (`sources/<name>/identity.ts`), and the ordered list of them all that every other list is derived
// from — `PlatformName`, the registry's keys (platforms.ts), the hosts cookies are kept for
// (platform-hosts.ts).
//
// A platform's name is its one name inside the code: its folder's name, its registry key, its upstream
// and cookie names (UNFURL_UPSTREAM_<NAME>, UNFURL_COOKIES_<NAME>). Answers that know a platform by
// another name (`twitter`, `file`) map it where they are shaped: WIRE_PLATFORM_NAMES in post-metadata.ts.
import { DIRECT_IDENTITY } from './direct/identity.js';
import { FACEBOOK_IDENTITY } from './facebook/identity.js';
import { INSTAGRAM_IDENTITY } from './instagram/identity.js';
import { TIKTOK_IDENTITY } from './tiktok/identity.js';
import { X_IDENTITY } from './x/identity.js';
import { YOUTUBE_IDENTITY } from './youtube/identity.js';

export interface PlatformIdentity {
  /** Its one name inside the code (folder, registry key, `MediaRef.platform`, upstream and cookie names). */
  readonly name: string;
  /** Its own name as descriptions list it (`YouTube`; `a direct media file (.mp4 …)`). */
  readonly displayName: string;
  /** What URLs it takes, as the 400 for a URL no platform takes lists them (`youtube.com/youtu.be`). */
  readonly accepts: string;
  /**
   * Whether a host is its own, by the same predicate its URL recognition uses: its operator cookies
   * (UNFURL_COOKIES_<NAME>) are kept and sent only for these. Null: no host is its own (direct files).
   */
  readonly ownsHost: ((host: string) => boolean) | null;
}

/** Every platform, in the order a URL is offered to them (direct files last). */
export const PLATFORM_IDENTITIES = [
  YOUTUBE_IDENTITY,
  TIKTOK_IDENTITY,
  INSTAGRAM_IDENTITY,
  X_IDENTITY,
  FACEBOOK_IDENTITY,
  DIRECT_IDENTITY,
] as const satisfies readonly PlatformIdentity[];

export type PlatformName = (typeof PLATFORM_IDENTITIES)[number]['name'];
