// Facebook as a Platform: video, reel, watch and post URLs (share/ links and fb.watch
// followed), captions from the page's caption files (WebVTT or SRT), and the video file. The page is
// fetched hop by hop through the `facebook` upstream (a login redirect → 403) and cached parsed.
import { cached, type ResultCache } from '../../cache/result-cache.js';
import { AppError } from '../../errors.js';
import type { Upstreams } from '../../net/upstream.js';
import { chooseTrack, languagesOf } from '../caption-choice.js';
import { parseCaptionFile } from '../caption-files.js';
import type { MediaLocation, MediaRef, NativeTranscriptRequest, Platform } from '../platform.js';
import type { PostMetadata } from '../post-metadata.js';
import { followShortLink } from '../short-link.js';
import type { NativeTranscript } from '../transcript.js';
import { isFacebookBlocked } from './blocks.js';
import { FACEBOOK_IDENTITY } from './identity.js';
import { type FacebookUrl, facebookVideoUrl, isFacebookHost, parseFacebookUrl } from './ids.js';
import { type FacebookPage, type FacebookVideo, parseFacebookPage } from './page.js';
import { facebookMetadata } from './post-metadata.js';

export interface FacebookDeps {
  upstreams: Upstreams;
  cache: ResultCache;
  ttlMs: number;
}

const USER_AGENT =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const HEADERS = {
  'user-agent': USER_AGENT,
  accept: 'text/html',
  'accept-language': 'en-US,en;q=0.9',
  'sec-fetch-mode': 'navigate',
};
const MAX_HOPS = 4;

export class FacebookPlatform implements Platform {
  readonly name = FACEBOOK_IDENTITY.name;
  readonly displayName = FACEBOOK_IDENTITY.displayName;
  readonly accepts = FACEBOOK_IDENTITY.accepts;

  constructor(private readonly deps: FacebookDeps) {}

  async recognise(url: URL, signal?: AbortSignal): Promise<MediaRef | null> {
    let parsed: FacebookUrl | null = parseFacebookUrl(url);
    if (!parsed) return null;
    if (parsed.kind === 'short') {
      parsed = await followShortLink(this.deps.upstreams, 'facebook', parsed.url, {
        method: 'GET',
        headers: HEADERS,
        signal,
        blocked: isFacebookBlocked,
        ownHost: isFacebookHost,
        recognise: (next) => {
          // (A /checkpoint/ hop is a wall, retried elsewhere before it gets here: blocks.ts.)
          if (/^\/login\b/.test(next.pathname)) {
            throw new AppError(
              'forbidden',
              'The social network wants a login to show what this link points to',
            );
          }
          try {
            const found = parseFacebookUrl(next);
            return found && found.kind !== 'short' ? found : null;
          } catch {
            return null;
          }
        },
      });
    }
    if (parsed.kind === 'video') {
      return { platform: 'facebook', id: parsed.id, url: facebookVideoUrl(parsed.id, parsed.reel) };
    }
    if (parsed.kind === 'post') return { platform: 'facebook', id: parsed.id, url: parsed.url };
    return null;
  }

  async nativeTranscript(ref: MediaRef, request: NativeTranscriptRequest): Promise<NativeTranscript> {
    const video = await this.video(ref, request.signal);
    const tracks = video.captions;
    return cached(
      this.deps.cache,
      `fb:captions:${ref.id}:${request.lang ?? ''}`,
      this.deps.ttlMs,
      async () => {
        const remaining = tracks.map((t) => ({ ...t, original: !t.auto }));
        while (remaining.length) {
          const track = chooseTrack(remaining, request.lang)!;
          remaining.splice(remaining.indexOf(track), 1);
          const res = await this.deps.upstreams.fetch('facebook', track.url, {
            headers: { 'user-agent': USER_AGENT, referer: ref.url },
            signal: request.signal,
            blocked: isFacebookBlocked,
          });
          if (res.status !== 200) continue;
          const cues = parseCaptionFile(res.body.toString('utf8'));
          if (cues.length) return { cues, lang: track.lang, availableLangs: languagesOf(tracks) };
        }
        throw new AppError('transcript_unavailable', `Video ${ref.id} has no captions`, ref.id);
      },
    );
  }

  async metadata(ref: MediaRef, signal?: AbortSignal): Promise<PostMetadata> {
    return facebookMetadata(await this.video(ref, signal), ref.id, ref.url);
  }

  async locateMedia(ref: MediaRef, signal?: AbortSignal): Promise<MediaLocation> {
    const video = await this.video(ref, signal);
    return {
      upstream: 'facebook',
      url: video.urls[0]!,
      headers: { 'user-agent': USER_AGENT, referer: 'https://www.facebook.com/' },
      durationSec: video.durationSec,
      kind: 'video',
    };
  }

  private async video(ref: MediaRef, signal?: AbortSignal): Promise<FacebookVideo> {
    const page = await cached(this.deps.cache, `fb:page:${ref.id}`, this.deps.ttlMs, () =>
      this.load(ref, signal),
    );
    switch (page.kind) {
      case 'video':
        if (page.video.urls.length === 0)
          throw new AppError('not_found', `Video ${ref.id} has no playable file`, ref.id);
        return page.video;
      case 'login':
        throw new AppError(
          'forbidden',
          `Video ${ref.id} is only shown to logged-in users (private or restricted)`,
        );
      case 'missing':
        throw new AppError('not_found', `Video ${ref.id} not found or not available`, ref.id);
      default:
        throw new AppError(
          'upstream_error',
          'facebook answered a page without video data (blocked or changed)',
        );
    }
  }

  private async load(ref: MediaRef, signal?: AbortSignal): Promise<FacebookPage> {
    let url = ref.url;
    for (let hop = 0; hop <= MAX_HOPS; hop++) {
      const res = await this.deps.upstreams.fetch('facebook', url, {
        headers: HEADERS,
        maxRedirects: 0,
        signal,
        blocked: isFacebookBlocked,
      });
      const location = res.headers.location;
      if (res.status >= 300 && res.status < 400 && location) {
        const next = new URL(String(location), url);
        if (/^\/login\b/.test(next.pathname)) return { kind: 'login' };
        url = next.toString();
        continue;
      }
      if (res.status === 404 || res.status === 410) return { kind: 'missing' };
      if (res.status !== 200) throw new AppError('upstream_error', `facebook answered HTTP ${res.status}`);
      return parseFacebookPage(res.body.toString('utf8'), /^\d+$/.test(ref.id) ? ref.id : null);
    }
    throw new AppError('upstream_error', `facebook redirected more than ${MAX_HOPS} times`);
  }
}
