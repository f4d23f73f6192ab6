// Native transcripts of a video: player (mobile client first) → caption track for the language
// preference → timedtext → cues. A track gated behind a proof-of-origin token (exp=xpe), an empty
// body or a failed client is retried with the next client; an empty transcript is never returned.
// Results (including "no captions") are cached per video and language preference.
import { cached, type ResultCache } from '../../cache/result-cache.js';
import { AppError } from '../../errors.js';
import type { NativeTranscript } from '../transcript.js';
import { PLAYER_CLIENTS, type YouTubeClient } from './client.js';
import { type PlayerInfo, playabilityError } from './player.js';
import { parseTimedtext } from './timedtext.js';
import { availableLangs, chooseTrack, timedtextUrl } from './tracks.js';

export type TranscriptMode = 'native' | 'auto' | 'generate';

export interface TranscriptRequest {
  lang?: string;
  mode: TranscriptMode;
}

const speechRecognitionUnavailable = () =>
  new AppError(
    'provider_unavailable',
    'This video has no captions and would need speech recognition, which is not configured on this server',
  );

const noCaptions = (videoId: string) =>
  new AppError('transcript_unavailable', `Video ${videoId} has no captions`, videoId);

/** Errors that another client would answer the same way: the video's own state, not our access. */
const isFinal = (err: AppError) => err.code !== 'upstream_error';

export class YouTubeTranscripts {
  constructor(
    private readonly client: YouTubeClient,
    private readonly cache: ResultCache,
    private readonly ttlMs: number,
  ) {}

  /** A native transcript, or the error the mode calls for (404, 403, 503 for speech recognition). */
  async get(videoId: string, request: TranscriptRequest): Promise<NativeTranscript> {
    if (request.mode === 'generate') {
      // Only speech recognition will do; still say 404/403 first when the video cannot be had.
      const player = await this.playable(videoId);
      if (player.details?.isLive || player.status === 'live_offline') throw this.live(videoId);
      throw speechRecognitionUnavailable();
    }
    const native = await this.native(videoId, request.lang ?? null);
    if (native) return native;
    if (request.mode === 'native') throw noCaptions(videoId);
    throw speechRecognitionUnavailable();
  }

  private live(videoId: string) {
    return new AppError(
      'transcript_unavailable',
      `Video ${videoId} is a live stream; it has a transcript only once it has ended`,
      videoId,
    );
  }

  /** The first client's playable answer (errors of the video itself are thrown at once). */
  private async playable(videoId: string): Promise<PlayerInfo> {
    let last: AppError | null = null;
    for (const name of PLAYER_CLIENTS) {
      try {
        const player = await this.client.player(videoId, name);
        const err = playabilityError(player, 'transcript', videoId);
        if (!err) return player;
        if (isFinal(err)) throw err;
        last = err;
      } catch (err) {
        if (!(err instanceof AppError) || isFinal(err)) throw err;
        last = err;
      }
    }
    throw last ?? new AppError('upstream_error', 'youtube answered no player');
  }

  /** null: the video has no captions. */
  private native(videoId: string, lang: string | null): Promise<NativeTranscript | null> {
    return cached(this.cache, `yt:transcript:${videoId}:${lang ?? ''}`, this.ttlMs, async () => {
      let last: AppError | null = null;
      for (const name of PLAYER_CLIENTS) {
        try {
          const result = await this.fromClient(videoId, lang, name);
          if (result !== undefined) return result;
          last = new AppError(
            'upstream_error',
            `youtube answered no usable captions for video ${videoId} (the track needs a proof-of-origin token or came back empty)`,
          );
        } catch (err) {
          if (!(err instanceof AppError) || isFinal(err)) throw err;
          last = err;
        }
      }
      throw last ?? new AppError('upstream_error', 'youtube answered no player');
    });
  }

  /** The transcript through one client; null: no captions; undefined: this client's track is unusable. */
  private async fromClient(
    videoId: string,
    lang: string | null,
    name: (typeof PLAYER_CLIENTS)[number],
  ): Promise<NativeTranscript | null | undefined> {
    const player = await this.client.player(videoId, name);
    const err = playabilityError(player, 'transcript', videoId);
    if (err) throw err;
    const choice = chooseTrack(player, lang);
    if (!choice) {
      if (player.details?.isLive) throw this.live(videoId);
      return null;
    }
    if (choice.track.poTokenRequired) return undefined;
    const cues = parseTimedtext(await this.client.timedtext(timedtextUrl(choice)));
    if (cues.length === 0) return undefined;
    return { cues, lang: choice.lang, availableLangs: availableLangs(player.tracks) };
  }
}
