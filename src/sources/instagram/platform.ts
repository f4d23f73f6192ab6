// Instagram as a Platform: post and reel URLs (share/ links followed), no caption
// tracks (the site publishes none), and the video file of a post through its logged-out GraphQL
// query (an LSD token from the home page first). Answers are cached.
import { cached, type ResultCache } from '../../cache/result-cache.js';
import { AppError } from '../../errors.js';
import type { Upstreams } from '../../net/upstream.js';
import type { MediaLocation, MediaRef, NativeTranscriptRequest, Platform } from '../platform.js';
import type { PostMetadata } from '../post-metadata.js';
import { followShortLink } from '../short-link.js';
import type { NativeTranscript } from '../transcript.js';
import { isInstagramBlocked } from './blocks.js';
import { INSTAGRAM_IDENTITY } from './identity.js';
import {
  type InstagramUrl,
  instagramPostUrl,
  isInstagramHost,
  parseInstagramUrl,
  shortcodeToMediaId,
} from './ids.js';
import {
  IG_APP_ID,
  type InstagramAnswer,
  type InstagramMedia,
  lsdToken,
  POST_QUERY_DOC_ID,
  parseInstagramAnswer,
} from './media.js';
import { instagramMetadata } from './post-metadata.js';

export interface InstagramDeps {
  upstreams: Upstreams;
  cache: ResultCache;
  ttlMs: number;
}

const USER_AGENT =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

export class InstagramPlatform implements Platform {
  readonly name = INSTAGRAM_IDENTITY.name;
  readonly displayName = INSTAGRAM_IDENTITY.displayName;
  readonly accepts = INSTAGRAM_IDENTITY.accepts;

  constructor(private readonly deps: InstagramDeps) {}

  async recognise(url: URL, signal?: AbortSignal): Promise<MediaRef | null> {
    let parsed: InstagramUrl | null = parseInstagramUrl(url);
    if (!parsed) return null;
    if (parsed.kind === 'short') {
      parsed = await followShortLink(this.deps.upstreams, 'instagram', parsed.url, {
        method: 'GET',
        headers: { 'user-agent': USER_AGENT },
        signal,
        blocked: isInstagramBlocked,
        ownHost: isInstagramHost,
        recognise: (next) => {
          try {
            const found = parseInstagramUrl(next);
            return found?.kind === 'post' ? found : null;
          } catch {
            return null;
          }
        },
      });
    }
    if (parsed.kind !== 'post') return null;
    return {
      platform: 'instagram',
      id: parsed.shortcode,
      url: instagramPostUrl(parsed.shortcode, parsed.path),
    };
  }

  async nativeTranscript(ref: MediaRef, request: NativeTranscriptRequest): Promise<NativeTranscript> {
    // The site publishes no caption tracks; a removed, gated or photo-only post still says so first.
    // When the site will not answer the post query, "no captions" is true all the same.
    await this.locateMedia(ref, request.signal).catch((err: unknown) => {
      if (!(err instanceof AppError) || err.code !== 'upstream_error') throw err;
    });
    throw new AppError(
      'transcript_unavailable',
      `Post ${ref.id} has no captions (the photo-sharing site publishes no caption tracks)`,
      ref.id,
    );
  }

  async metadata(ref: MediaRef, signal?: AbortSignal): Promise<PostMetadata> {
    return instagramMetadata(await this.media(ref, signal), ref.id, ref.url);
  }

  async locateMedia(ref: MediaRef, signal?: AbortSignal): Promise<MediaLocation> {
    const media = await this.media(ref, signal);
    const url = media.videoUrls[0];
    if (!url) throw new AppError('not_found', `Post ${ref.id} has no video`, ref.id);
    return {
      upstream: 'instagram',
      url,
      headers: { 'user-agent': USER_AGENT, referer: ref.url },
      durationSec: media.durationSec,
      kind: 'video',
    };
  }

  /** The post as its query describes it (cached); 404 removed or unknown, 403 gated. */
  private async media(ref: MediaRef, signal?: AbortSignal): Promise<InstagramMedia> {
    const answer = await cached(this.deps.cache, `ig:media:${ref.id}`, this.deps.ttlMs, () =>
      this.query(ref, signal),
    );
    if (answer.kind === 'missing')
      throw new AppError('not_found', `Post ${ref.id} not found or not available`, ref.id);
    if (answer.kind === 'gated')
      throw new AppError('forbidden', `Post ${ref.id} is restricted (login required)`);
    if (answer.kind !== 'media') {
      throw new AppError('upstream_error', 'instagram answered the post query with something we cannot read');
    }
    return answer.media;
  }

  private async query(ref: MediaRef, signal?: AbortSignal): Promise<InstagramAnswer> {
    const lsd = await cached(this.deps.cache, 'ig:lsd', this.deps.ttlMs, async () => {
      const home = await this.deps.upstreams.fetch('instagram', 'https://www.instagram.com/', {
        headers: { 'user-agent': USER_AGENT, accept: 'text/html' },
        maxRedirects: 0,
        signal,
        blocked: isInstagramBlocked,
      });
      const token = home.status === 200 ? lsdToken(home.body.toString('utf8')) : null;
      if (!token)
        throw new AppError('upstream_error', `instagram home page gave no LSD token (HTTP ${home.status})`);
      return token;
    });
    const body = new URLSearchParams({
      lsd,
      fb_api_caller_class: 'RelayModern',
      fb_api_req_friendly_name: 'PolarisLoggedOutDesktopWWWPostRootContentQuery',
      variables: JSON.stringify({ media_id: shortcodeToMediaId(ref.id) }),
      doc_id: POST_QUERY_DOC_ID,
    }).toString();
    const res = await this.deps.upstreams.fetch('instagram', 'https://www.instagram.com/api/graphql', {
      method: 'POST',
      body,
      headers: {
        'user-agent': USER_AGENT,
        'content-type': 'application/x-www-form-urlencoded',
        'x-ig-app-id': IG_APP_ID,
        'x-fb-lsd': lsd,
        'x-fb-friendly-name': 'PolarisLoggedOutDesktopWWWPostRootContentQuery',
        'x-requested-with': 'XMLHttpRequest',
        referer: ref.url,
      },
      maxRedirects: 0,
      signal,
      blocked: isInstagramBlocked,
    });
    if (res.status === 404) return { kind: 'missing' };
    if (res.status >= 300 && res.status < 400) {
      throw new AppError('upstream_error', 'instagram sent the post query to its login page (rate-limited)');
    }
    if (res.status !== 200)
      throw new AppError('upstream_error', `instagram post query answered HTTP ${res.status}`);
    try {
      return parseInstagramAnswer(JSON.parse(res.body.toString('utf8')));
    } catch {
      throw new AppError('upstream_error', 'instagram post query answered something that is not JSON');
    }
  }
}
