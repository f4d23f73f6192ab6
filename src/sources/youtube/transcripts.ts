// Native transcripts of a video: player (walking the client chain) → caption track for the language
// preference → timedtext → cues. A client that is blocked, wants a login, cannot play the video or
// offers no captions, a track gated behind a proof-of-origin token (exp=xpe) when no token source is
// configured (with one, the URL carries the token: po-token.ts), an empty body or a failed fetch is
// retried with the next client; an empty transcript is never returned. Results
// (including "no captions" from every client) are cached per video and language preference. A
// translation takes the same way with a chooser that never settles for another language.
import { cached, type ResultCache } from '../../cache/result-cache.js';
import { AppError } from '../../errors.js';
import { checkLanguageCode, type NativeTranscript } from '../transcript.js';
import type { YouTubeClient } from './client.js';
import type { PlayerClient } from './client-table.js';
import { type PlayerInfo, playabilityError } from './player.js';
import { NextClient, passesOn } from './player-chain.js';
import { type PoToken, type PoTokenSource, withPoToken } from './po-token.js';
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

/** Which track of a player answer to read: null when none fits. */
type Chooser = (player: PlayerInfo) => TrackChoice | null;

/** What one walk over the clients learnt: the "no fitting track" reason, and the first track that failed. */
interface Walk {
  readonly noTrack: AppError;
  trouble: AppError | null;
}

export class YouTubeTranscripts {
  constructor(
    private readonly client: YouTubeClient,
    private readonly cache: ResultCache,
    private readonly ttlMs: number,
    private readonly poTokens: PoTokenSource | null = null,
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
    const player = await this.client.playerFor(videoId, 'transcript');
    const err = playabilityError(player, 'transcript', videoId);
    if (err) throw err;
    return player;
  }

  /** null: the video has no captions. */
  private native(videoId: string, lang: string | null): Promise<NativeTranscript | null> {
    return cached(this.cache, `yt:transcript:${videoId}:${lang ?? ''}`, this.ttlMs, () =>
      this.viaClients(videoId, (player) => chooseTrack(player, lang)),
    );
  }

  /** The chosen track's cues through the first client that gives them; null: no client has a track that fits. */
  private async viaClients(videoId: string, choose: Chooser): Promise<NativeTranscript | null> {
    const walk: Walk = {
      noTrack: new AppError('transcript_unavailable', `Video ${videoId} has no captions that fit`),
      trouble: null,
    };
    try {
      return await this.client.walk('captions', (client) => this.fromClient(videoId, choose, client, walk));
    } catch (err) {
      if (err !== walk.noTrack) throw err;
      // Some clients offered none, but one offered a track we could not read: "no captions" would be
      // untrue, so the answer is why that track failed.
      if (walk.trouble) throw walk.trouble;
      return null;
    }
  }

  /** The transcript through one client (NextClient when this client cannot give it). */
  private async fromClient(
    videoId: string,
    choose: Chooser,
    client: PlayerClient,
    walk: Walk,
  ): Promise<NativeTranscript> {
    const player = await this.client.player(videoId, client.name);
    const err = playabilityError(player, 'transcript', videoId);
    if (err) throw passesOn(player) ? new NextClient(err) : err;
    const choice = choose(player);
    if (!choice) {
      if (player.details?.isLive) throw this.live(videoId);
      throw new NextClient(walk.noTrack);
    }
    const unusable = new AppError(
      'upstream_error',
      `youtube answered no usable captions for video ${videoId} (the track needs a proof-of-origin token or came back empty)`,
    );
    let url = timedtextUrl(choice);
    let visitorData: string | null = null;
    if (choice.track.poTokenRequired) {
      // The platform gates single tracks (a captured answer has one gated among open ones): this says
      // nothing of the client for the next video, so it does not reorder the chain.
      if (!this.poTokens) {
        walk.trouble ??= unusable;
        throw new NextClient(unusable, false);
      }
      // Caption tokens are bound to the video. A provider that fails is the answer unless another
      // client serves (it remembers the failure briefly, so the walk does not wait on it again).
      let pot: PoToken;
      try {
        pot = await this.poTokens.token(videoId);
      } catch (potErr) {
        if (!(potErr instanceof AppError)) throw potErr;
        walk.trouble ??= potErr;
        throw new NextClient(potErr, false);
      }
      url = withPoToken(url, pot.token, client.clientName);
      visitorData = pot.visitorData;
    }
    let body: string;
    try {
      body = await this.client.timedtext(url, client.cookies, visitorData);
    } catch (fetchErr) {
      if (fetchErr instanceof AppError) walk.trouble ??= fetchErr;
      throw fetchErr;
    }
    const cues = parseTimedtext(body);
    if (cues.length === 0) {
      walk.trouble ??= unusable;
      throw new NextClient(unusable);
    }
    return { cues, lang: choice.lang, availableLangs: availableLangs(player.tracks) };
  }
}
