// The registry of platforms (a platform is one folder under sources/, one line in PLATFORM_IDENTITIES
// and one line here), and what routes and media jobs ask of it: which platform and video a URL names
// (short links followed), and where that video's media file can be downloaded. What each platform is
// lives in its folder (its `identity.ts`), what it does too (its `platform.ts`); the lists that describe
// them all are derived from the identities and from here.
import type { ResultCache } from '../cache/result-cache.js';
import { invalid } from '../errors.js';
import type { SafeFetcher } from '../net/safe-fetch.js';
import type { Upstreams } from '../net/upstream.js';
import { DirectPlatform } from './direct/platform.js';
import { FacebookPlatform } from './facebook/platform.js';
import { InstagramPlatform } from './instagram/platform.js';
import type { MediaLocation, MediaRef, Platform, PlatformName } from './platform.js';
import { PLATFORM_IDENTITIES } from './platform-name.js';
import type { PostMetadata } from './post-metadata.js';
import { TikTokPlatform } from './tiktok/platform.js';
import { XPlatform } from './x/platform.js';
import { YouTubePlatform } from './youtube/platform.js';
import type { YouTube } from './youtube/service.js';

export interface PlatformsDeps {
  youtube: YouTube;
  upstreams: Upstreams;
  fetcher: SafeFetcher;
  cache: ResultCache;
  ttlMs: number;
  /** X's web bearer token (UNFURL_X_BEARER_TOKEN), null: syndication only. */
  xBearerToken: string | null;
}

/**
 * The registry: one line per platform, keyed by its name (in the order of PLATFORM_IDENTITIES, the order a
 * URL is offered to them: direct files last). Every name has its line, under its own name.
 */
export function platformTable(deps: PlatformsDeps) {
  const shared = { upstreams: deps.upstreams, cache: deps.cache, ttlMs: deps.ttlMs };
  return {
    youtube: new YouTubePlatform(deps.youtube, deps.cache, deps.ttlMs),
    tiktok: new TikTokPlatform(shared),
    instagram: new InstagramPlatform(shared),
    x: new XPlatform({ ...shared, bearerToken: deps.xBearerToken }),
    facebook: new FacebookPlatform(shared),
    direct: new DirectPlatform(deps.fetcher),
  } satisfies { [N in PlatformName]: Platform & { readonly name: N } };
}

/** Each platform by its name, with its own type (`byName.x.post(id)`). */
export type PlatformTable = ReturnType<typeof platformTable>;

/** "a, b, c, or d" (with `and`: "a, b, c, and d"). */
const listed = (items: readonly string[], conjunction: 'and' | 'or') =>
  items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')}, ${conjunction} ${items.at(-1)}`;

export class Platforms {
  /** In the order of PLATFORM_IDENTITIES (the order a URL is offered to them). */
  readonly list: readonly Platform[];

  constructor(readonly byName: PlatformTable) {
    this.list = PLATFORM_IDENTITIES.map(({ name }) => byName[name]);
  }

  get(name: PlatformName): Platform {
    return this.byName[name];
  }

  /** The platforms as descriptions list them: "YouTube, TikTok, …, or a direct media file (.mp4 …)". */
  get described(): string {
    return listed(
      this.list.map((p) => p.displayName),
      'or',
    );
  }

  /** What URLs are taken, for the 400 of one that is not: "supported: youtube.com/youtu.be, …". */
  get supported(): string {
    return `supported: ${listed(
      this.list.map((p) => p.accepts),
      'and',
    )}`;
  }

  /** The video a URL names (short links resolved); anything else → 400 naming `url`. */
  async recognise(raw: string, signal?: AbortSignal): Promise<MediaRef> {
    const input = raw.trim();
    // A bare YouTube video id, as its routes have always taken.
    if (/^[A-Za-z0-9_-]{11}$/.test(input)) {
      return { platform: 'youtube', id: input, url: `https://www.youtube.com/watch?v=${input}` };
    }
    let url: URL;
    try {
      // "youtu.be/…", "www.tiktok.com/…": a URL pasted without its scheme.
      url = new URL(/^[a-z][a-z0-9+.-]*:/i.test(input) ? input : `https://${input.replace(/^\/\//, '')}`);
    } catch {
      throw invalid('url', 'not a URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw invalid('url', 'only http and https URLs');
    if (url.username || url.password) throw invalid('url', 'credentials in URLs are not allowed');
    for (const platform of this.list) {
      const ref = await platform.recognise(url, signal);
      if (ref) return ref;
    }
    throw invalid('url', `videos from ${url.hostname} are not supported yet (${this.supported})`);
  }

  /** The video a URL names and where its media file is (403/404 for private or removed videos). */
  async locate(raw: string, signal?: AbortSignal): Promise<{ ref: MediaRef; location: MediaLocation }> {
    const ref = await this.recognise(raw, signal);
    const location = await this.get(ref.platform).locateMedia(ref, signal);
    return { ref, location };
  }

  /**
   * The post or video a URL names in the shared metadata shape: 400 naming `url` for a URL no
   * platform takes, 404 for a post or video that does not exist (or no media file at a file URL).
   */
  async metadataOf(raw: string, signal?: AbortSignal): Promise<PostMetadata> {
    const ref = await this.recognise(raw, signal);
    return this.get(ref.platform).metadata(ref, signal);
  }

  /** Throws when the video cannot be had at all (before speech recognition is asked to run). */
  async checkAvailable(ref: MediaRef, signal?: AbortSignal): Promise<void> {
    const platform = this.get(ref.platform);
    if (platform.checkAvailable) await platform.checkAvailable(ref, signal);
    else await platform.locateMedia(ref, signal);
  }
}
