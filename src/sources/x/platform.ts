// X as a Platform (its videos for speech recognition, OCR, …) and the post metadata the
// /v1/microblog/post route serves.
import { cached, type ResultCache } from '../../cache/result-cache.js';
import { AppError } from '../../errors.js';
import type { Upstreams } from '../../net/upstream.js';
import type { MediaLocation, MediaRef, NativeTranscriptRequest, Platform } from '../platform.js';
import type { PostMetadata } from '../post-metadata.js';
import { followShortLink } from '../short-link.js';
import type { NativeTranscript } from '../transcript.js';
import { isXBlocked } from './blocks.js';
import { XClient } from './client.js';
import { X_IDENTITY } from './identity.js';
import { isXHost, parseXUrl, type XUrl, xPostUrl } from './ids.js';
import type { PostVideo, XPost } from './post.js';
import { xMetadata } from './post-metadata.js';

export interface XDeps {
  upstreams: Upstreams;
  cache: ResultCache;
  ttlMs: number;
  bearerToken: string | null;
}

export class XPlatform implements Platform {
  readonly name = X_IDENTITY.name;
  readonly displayName = X_IDENTITY.displayName;
  readonly accepts = X_IDENTITY.accepts;
  private readonly client: XClient;

  constructor(private readonly deps: XDeps) {
    this.client = new XClient(deps);
  }

  async recognise(url: URL, signal?: AbortSignal): Promise<MediaRef | null> {
    let parsed: XUrl | null = parseXUrl(url);
    if (!parsed) return null;
    if (parsed.kind === 'short') {
      parsed = await followShortLink(this.deps.upstreams, 'x', parsed.url, {
        method: 'GET',
        signal,
        blocked: isXBlocked,
        ownHost: isXHost,
        recognise: (next) => {
          try {
            const found = parseXUrl(next);
            return found?.kind === 'post' ? found : null;
          } catch {
            return null;
          }
        },
      });
    }
    if (parsed.kind !== 'post') return null;
    return { platform: 'x', id: parsed.id, url: xPostUrl(parsed.id, parsed.user) };
  }

  /** The post's metadata; deleted, protected, suspended or unknown posts → 404. */
  async post(id: string, signal?: AbortSignal): Promise<XPost> {
    return (await this.details(id, signal)).post;
  }

  /** The post and its video files (durations, playlists), 404 like `post`. */
  async details(id: string, signal?: AbortSignal): Promise<{ post: XPost; videos: PostVideo[] }> {
    const parsed = await this.client.post(id, signal);
    if (parsed.kind === 'unavailable') {
      throw new AppError('not_found', `Post ${id} not found or not available (${parsed.reason})`, id);
    }
    return { post: parsed.post, videos: parsed.videos };
  }

  async metadata(ref: MediaRef, signal?: AbortSignal): Promise<PostMetadata> {
    const { post, videos } = await this.details(ref.id, signal);
    return xMetadata(post, videos);
  }

  /** Captions the uploader added: subtitle renditions of the video's HLS playlist. */
  async nativeTranscript(ref: MediaRef, request: NativeTranscriptRequest): Promise<NativeTranscript> {
    const parsed = await this.client.post(ref.id, request.signal);
    if (parsed.kind === 'unavailable') {
      throw new AppError('not_found', `Post ${ref.id} not found or not available (${parsed.reason})`, ref.id);
    }
    const hls = parsed.videos[0]?.hlsUrl;
    const none = new AppError('transcript_unavailable', `Post ${ref.id} has no captions`, ref.id);
    if (!hls) throw none;
    const found = await cached(
      this.deps.cache,
      `x:captions:${ref.id}:${request.lang ?? ''}`,
      this.deps.ttlMs,
      () => this.client.hlsCaptions(hls, request.lang ?? null, request.signal),
    );
    if (!found) throw none;
    return found;
  }

  async locateMedia(ref: MediaRef, signal?: AbortSignal): Promise<MediaLocation> {
    const parsed = await this.client.post(ref.id, signal);
    if (parsed.kind === 'unavailable') {
      throw new AppError('not_found', `Post ${ref.id} not found or not available (${parsed.reason})`, ref.id);
    }
    const video = parsed.videos[0];
    if (!video) throw new AppError('not_found', `Post ${ref.id} has no video`, ref.id);
    return { upstream: 'x', url: video.url, durationSec: video.durationSec, kind: 'video' };
  }
}
