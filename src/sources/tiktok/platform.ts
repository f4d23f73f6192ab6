// TikTok as a Platform: URLs (short links followed), native captions from the page's
// subtitle tracks (WebVTT), and the media file of the video.
import { cached, type ResultCache } from '../../cache/result-cache.js';
import { AppError } from '../../errors.js';
import type { Upstreams } from '../../net/upstream.js';
import { chooseTrack, languagesOf } from '../caption-choice.js';
import { parseCaptionFile } from '../caption-files.js';
import type { MediaLocation, MediaRef, NativeTranscriptRequest, Platform } from '../platform.js';
import type { PostMetadata } from '../post-metadata.js';
import { followShortLink } from '../short-link.js';
import type { NativeTranscript } from '../transcript.js';
import { isTikTokBlocked } from './blocks.js';
import { type FetchedTikTokPage, TIKTOK_USER_AGENT, TikTokClient } from './client.js';
import { TIKTOK_IDENTITY } from './identity.js';
import { isTikTokHost, parseTikTokUrl, type TikTokUrl, tiktokVideoUrl } from './ids.js';
import type { TikTokVideo } from './page.js';
import { tiktokMetadata } from './post-metadata.js';

export interface TikTokDeps {
  upstreams: Upstreams;
  cache: ResultCache;
  ttlMs: number;
}

const noCaptions = (id: string) => new AppError('transcript_unavailable', `Video ${id} has no captions`, id);

/** The video of a fetched page, or the error its state means. */
function videoOf(fetched: FetchedTikTokPage, id: string): TikTokVideo {
  const { page } = fetched;
  switch (page.kind) {
    case 'video':
      return page.video;
    case 'status':
      if (page.code === 10216 || page.code === 10222) {
        throw new AppError(
          'forbidden',
          `Video ${id} is private${page.code === 10222 ? ' (private account)' : ''}`,
        );
      }
      throw new AppError('not_found', `Video ${id} not found or not available`, id);
    case 'no_video':
      throw new AppError('not_found', `Post ${id} has no video (a photo post?)`, id);
    default:
      throw new AppError('upstream_error', 'tiktok answered a page without its video data (blocked?)');
  }
}

export class TikTokPlatform implements Platform {
  readonly name = TIKTOK_IDENTITY.name;
  readonly displayName = TIKTOK_IDENTITY.displayName;
  readonly accepts = TIKTOK_IDENTITY.accepts;
  private readonly client: TikTokClient;

  constructor(private readonly deps: TikTokDeps) {
    this.client = new TikTokClient(deps);
  }

  async recognise(url: URL, signal?: AbortSignal): Promise<MediaRef | null> {
    let parsed: TikTokUrl | null = parseTikTokUrl(url);
    if (!parsed) return null;
    if (parsed.kind === 'short') {
      const short = parsed.url;
      parsed = await cached(this.deps.cache, `tt:short:${short}`, this.deps.ttlMs, () =>
        followShortLink(this.deps.upstreams, 'tiktok', short, {
          // The site answers a link preview bot with a plain redirect.
          headers: { 'user-agent': 'facebookexternalhit/1.1' },
          signal,
          blocked: isTikTokBlocked,
          ownHost: isTikTokHost,
          recognise: (next) => {
            const found = parseTikTokUrl(next);
            return found && found.kind !== 'short' ? found : null;
          },
        }),
      );
    }
    if (parsed.kind === 'photo') {
      throw new AppError('invalid_request', "Invalid parameter 'url': a photo post has no video", 'url');
    }
    if (parsed.kind !== 'video') return null;
    return { platform: 'tiktok', id: parsed.id, url: tiktokVideoUrl(parsed.id, parsed.user) };
  }

  async nativeTranscript(ref: MediaRef, request: NativeTranscriptRequest): Promise<NativeTranscript> {
    const fetched = await this.client.page(ref.id, ref.url, request.signal);
    const video = videoOf(fetched, ref.id);
    const tracks = video.captions
      .filter((t) => t.format === 'webvtt' || t.format === 'srt' || t.format === 'vtt')
      .map((t) => ({ ...t, auto: t.source !== 'creator', translated: t.source === 'mt' }));
    const availableLangs = languagesOf(tracks);
    // Caption URLs are signed and short-lived: fetched now, the cues cached rather than the URL.
    return cached(
      this.deps.cache,
      `tt:captions:${ref.id}:${request.lang ?? ''}`,
      this.deps.ttlMs,
      async () => {
        const remaining = [...tracks];
        while (remaining.length) {
          const track = chooseTrack(remaining, request.lang)!;
          remaining.splice(remaining.indexOf(track), 1);
          const body = await this.client.captionFile(track.url, fetched.url, fetched.cookie, request.signal);
          const cues = parseCaptionFile(body);
          if (cues.length) return { cues, lang: track.lang, availableLangs };
        }
        throw noCaptions(ref.id);
      },
    );
  }

  async metadata(ref: MediaRef, signal?: AbortSignal): Promise<PostMetadata> {
    const fetched = await this.client.page(ref.id, ref.url, signal);
    return tiktokMetadata(videoOf(fetched, ref.id), ref.url);
  }

  async locateMedia(ref: MediaRef, signal?: AbortSignal): Promise<MediaLocation> {
    const fetched = await this.client.page(ref.id, ref.url, signal);
    const video = videoOf(fetched, ref.id);
    const url = video.playUrls[0];
    if (!url) throw new AppError('upstream_error', `tiktok showed no playable file for video ${ref.id}`);
    return {
      upstream: 'tiktok',
      url,
      headers: {
        'user-agent': TIKTOK_USER_AGENT,
        referer: fetched.url,
        ...(fetched.cookie && { cookie: fetched.cookie }),
      },
      durationSec: video.durationSec,
      kind: 'video',
    };
  }
}
