// YouTube as a Platform, wrapped around its service facade (service.ts): its URLs and bare video ids,
// native captions, metadata and chapters from the watch page, and the media file of a video from the
// first player client that hands one out.
import { cached, type ResultCache } from '../../cache/result-cache.js';
import { AppError, invalid } from '../../errors.js';
import type { MediaLocation, MediaRef, NativeTranscriptRequest, Platform } from '../platform.js';
import type { PostMetadata } from '../post-metadata.js';
import type { Chapter, NativeTranscript } from '../transcript.js';
import { YOUTUBE_IDENTITY } from './identity.js';
import { isPlatformHost, videoIdOfUrl } from './ids.js';
import { PLAYER_MEMBERS, parsePlayer, playabilityError } from './player.js';
import { NextClient, passesOn } from './player-chain.js';
import { youtubeMetadata } from './post-metadata.js';
import type { YouTube } from './service.js';
import { type PlayerStream, parseStreams, pickStream, STREAM_MEMBERS } from './streams.js';

const liveError = (id: string) =>
  new AppError(
    'transcript_unavailable',
    `Video ${id} is a live stream; it has a transcript only once it has ended`,
    id,
  );

/** YouTube, wrapped around its service facade. */
export class YouTubePlatform implements Platform {
  readonly name = YOUTUBE_IDENTITY.name;
  readonly displayName = YOUTUBE_IDENTITY.displayName;
  readonly accepts = YOUTUBE_IDENTITY.accepts;

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
