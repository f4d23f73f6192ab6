// Native transcripts of a video: player (mobile client first) → caption track for the language
// preference → timedtext → cues. A track gated behind a proof-of-origin token (exp=xpe), an empty
// body or a failed client is retried with the next client; an empty transcript is never returned.
// Results (including "no captions") are cached per video and language preference. A translation
// takes the same way with a chooser that never settles for another language.
import { cached, type ResultCache } from '../../cache/result-cache.js';
import { AppError } from '../../errors.js';
import { checkLanguageCode, type NativeTranscript } from '../transcript.js';
import { PLAYER_CLIENTS, type YouTubeClient } from './client.js';
import { type PlayerInfo, playabilityError } from './player.js';
import { parseTimedtext } from './timedtext.js';
import { availableLangs, chooseTrack, type TrackChoice, timedtextUrl, translationChoice } from './tracks.js';

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

/** Which track of a player answer to read: null when none fits. */
type Chooser = (player: PlayerInfo) => TrackChoice | null;

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

  /**
   * The captions in `lang` as the platform gives them: a track in that language, else its own
   * translation of the original track (timedtext `tlang`). 404 transcript_unavailable when the
   * video has no captions or the platform does not translate them into `lang`.
   */
  async translated(videoId: string, lang: string): Promise<NativeTranscript> {
    checkLanguageCode(lang);
    const found = await cached(this.cache, `yt:translation:${videoId}:${lang}`, this.ttlMs, () =>
      this.viaClients(videoId, (player) => translationChoice(player, lang)),
    );
    if (found) return found;
    throw new AppError(
      'transcript_unavailable',
      `Video ${videoId} has no captions the platform translates into ${lang}`,
      videoId,
    );
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
    return cached(this.cache, `yt:transcript:${videoId}:${lang ?? ''}`, this.ttlMs, () =>
      this.viaClients(videoId, (player) => chooseTrack(player, lang)),
    );
  }

  /** The chosen track's cues through the first client that gives them; null: no track fits. */
  private async viaClients(videoId: string, choose: Chooser): Promise<NativeTranscript | null> {
    let last: AppError | null = null;
    for (const name of PLAYER_CLIENTS) {
      try {
        const result = await this.fromClient(videoId, choose, name);
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
  }

  /** The transcript through one client; null: no track fits; undefined: this client's track is unusable. */
  private async fromClient(
    videoId: string,
    choose: Chooser,
    name: (typeof PLAYER_CLIENTS)[number],
  ): Promise<NativeTranscript | null | undefined> {
    const player = await this.client.player(videoId, name);
    const err = playabilityError(player, 'transcript', videoId);
    if (err) throw err;
    const choice = choose(player);
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
