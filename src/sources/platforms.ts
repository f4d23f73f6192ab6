// The one table of platforms (DESIGN §3: a platform is one folder under sources/ plus one line here),
// and what routes and media jobs ask of it: which platform and video a URL names (short links
// followed), and where that video's media file can be downloaded.
import { cached, type ResultCache } from '../cache/result-cache.js';
import { AppError, invalid } from '../errors.js';
import type { SafeFetcher } from '../net/safe-fetch.js';
import type { Upstreams } from '../net/upstream.js';
import { DirectPlatform } from './direct/platform.js';
import { FacebookPlatform } from './facebook/platform.js';
import { InstagramPlatform } from './instagram/platform.js';
import type { MediaLocation, MediaRef, NativeTranscriptRequest, Platform, PlatformName } from './platform.js';
import type { PostMetadata } from './post-metadata.js';
import { TikTokPlatform } from './tiktok/platform.js';
import type { Chapter, NativeTranscript } from './transcript.js';
import { XPlatform } from './x/platform.js';
import { isPlatformHost, videoIdOfUrl } from './youtube/ids.js';
import { PLAYER_MEMBERS, parsePlayer, playabilityError } from './youtube/player.js';
import { NextClient, passesOn } from './youtube/player-chain.js';
import { youtubeMetadata } from './youtube/post-metadata.js';
import type { YouTube } from './youtube/service.js';
import { type PlayerStream, parseStreams, pickStream, STREAM_MEMBERS } from './youtube/streams.js';

export interface PlatformsDeps {
  youtube: YouTube;
  upstreams: Upstreams;
  fetcher: SafeFetcher;
  cache: ResultCache;
  ttlMs: number;
  /** The microblog's web bearer token (UNFURL_X_BEARER_TOKEN), null: syndication only. */
  xBearerToken: string | null;
}

const liveError = (id: string) =>
  new AppError(
    'transcript_unavailable',
    `Video ${id} is a live stream; it has a transcript only once it has ended`,
    id,
  );

/** The video-sharing platform, wrapped around its existing facade. */
export class YouTubePlatform implements Platform {
  readonly name = 'youtube' as const;

  constructor(
    private readonly youtube: YouTube,
    private readonly cache: ResultCache,
    private readonly ttlMs: number,
  ) {}

  async recognise(url: URL): Promise<MediaRef | null> {
    if (!isPlatformHost(url.hostname)) return null;
    const id = videoIdOfUrl(url);
    if (!id) throw invalid('url', 'not a video URL (watch, youtu.be, shorts, embed or live)');
    return { platform: 'youtube', id, url: `https://www.youtube.com/watch?v=${id}` };
  }

  nativeTranscript(ref: MediaRef, request: NativeTranscriptRequest): Promise<NativeTranscript> {
    // Native captions only: what to do without them is the shared transcript flow's decision.
    return this.youtube.transcript(ref.id, { lang: request.lang, mode: 'native' });
  }

  async checkAvailable(ref: MediaRef): Promise<void> {
    await this.playable(ref.id);
  }

  async metadata(ref: MediaRef): Promise<PostMetadata> {
    const { video, watch } = await this.youtube.videoPage(ref.id);
    return youtubeMetadata(video, watch);
  }

  /** From the video's metadata, kept on its own (only once its watch page was had). */
  async chapters(ref: MediaRef): Promise<Chapter[]> {
    return (await this.youtube.video(ref.id)).chapters;
  }

  async locateMedia(ref: MediaRef): Promise<MediaLocation> {
    const { userAgent, streams, durationSec } = await this.playable(ref.id);
    const stream = pickStream(streams, 'video');
    if (!stream) {
      throw new AppError(
        'upstream_error',
        `youtube offered no stream of video ${ref.id} that can be fetched without its web player (signature cipher only)`,
      );
    }
    return {
      upstream: 'youtube',
      url: stream.url,
      headers: { 'user-agent': userAgent },
      durationSec: stream.durationSec ?? durationSec,
      kind: stream.hasVideo ? 'video' : 'audio',
    };
  }

  /**
   * The first playable player answer with its streams, walking the client chain (a client that is
   * blocked or wants a login passes to the next); the video's own errors at once.
   */
  private async playable(id: string): Promise<Playable> {
    let ciphered: Playable | null = null;
    try {
      return await this.youtube.client.walk('media', async (client) => {
        const answer = await cached(this.cache, `yt:streams:${client.name}:${id}`, this.ttlMs, async () => {
          const raw = await this.youtube.innertube.call(
            'player',
            { videoId: id, contentCheckOk: true, racyCheckOk: true },
            { client: client.name, members: [...PLAYER_MEMBERS, ...STREAM_MEMBERS] },
          );
          return { player: parsePlayer(raw), streams: parseStreams(raw) };
        });
        const err = playabilityError(answer.player, 'transcript', id);
        if (err) throw passesOn(answer.player) ? new NextClient(err) : err;
        if (answer.player.details?.isLive || answer.player.status === 'live_offline') throw liveError(id);
        const found = {
          userAgent: client.userAgent,
          streams: answer.streams,
          durationSec: answer.player.details?.lengthSeconds ?? null,
        };
        // A client that hands out only ciphered URLs: the next one may do better.
        if (found.streams.length === 0) {
          ciphered ??= found;
          throw new NextClient(null);
        }
        return found;
      });
    } catch (err) {
      // The video can be played, only not downloaded by us: locateMedia says so.
      if (ciphered) return ciphered;
      throw err;
    }
  }
}

/** A playable answer: its streams, and the user agent of the client they were handed to. */
interface Playable {
  userAgent: string;
  streams: PlayerStream[];
  durationSec: number | null;
}

/** The registry table: the order in which a URL is offered to each platform (direct files last). */
export function platformTable(deps: PlatformsDeps): Platform[] {
  const shared = { upstreams: deps.upstreams, cache: deps.cache, ttlMs: deps.ttlMs };
  return [
    new YouTubePlatform(deps.youtube, deps.cache, deps.ttlMs),
    new TikTokPlatform(shared),
    new InstagramPlatform(shared),
    new XPlatform({ ...shared, bearerToken: deps.xBearerToken }),
    new FacebookPlatform(shared),
    new DirectPlatform(deps.fetcher),
  ];
}

const SUPPORTED =
  'supported: youtube.com/youtu.be, tiktok.com, instagram.com, x.com/twitter.com, facebook.com/fb.watch, ' +
  'and direct .mp4 .webm .mp3 .m4a .wav .ogg .flac files';

export class Platforms {
  private readonly byName: Map<PlatformName, Platform>;

  constructor(readonly list: readonly Platform[]) {
    this.byName = new Map(list.map((p) => [p.name, p]));
  }

  get(name: PlatformName): Platform {
    const platform = this.byName.get(name);
    if (!platform) throw new AppError('internal_error', `No platform named ${name}`);
    return platform;
  }

  get x(): XPlatform {
    return this.get('x') as XPlatform;
  }

  /** The video a URL names (short links resolved); anything else → 400 naming `url`. */
  async recognise(raw: string, signal?: AbortSignal): Promise<MediaRef> {
    const input = raw.trim();
    // A bare video id of the video-sharing platform, as its routes have always taken.
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
    throw invalid('url', `videos from ${url.hostname} are not supported yet (${SUPPORTED})`);
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
