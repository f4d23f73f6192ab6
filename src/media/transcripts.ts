// The one transcript decision behind GET /v1/transcript and /v1/vidsite/transcript, for every
// platform: mode=native → the platform's captions or 404 transcript_unavailable; generate → speech
// recognition (after the 403/404 of a video that cannot be had); auto → captions, else speech
// recognition — also when the platform refuses the caption request (429, a bot check, an empty
// proof-of-origin answer) while its media can still be located, unless the operator turned that
// off. Captions cost one request's price (held first, settled on success; a repeated request's
// kept answer is charged at once, with no hold — nothing upstream runs); speech is a job
// with its own hold, sized from the platform's length under one sizing hold (availability, the
// provider check and the media lookup), released before the job holds its estimate. Knows nothing
// of HTTP: it answers a tagged result the route turns into a 200 or a 202.
import { prices } from '../billing/prices.js';
import type { JobCredits, RequestCharges } from '../billing/request-charges.js';
import type { ResultCache } from '../cache/result-cache.js';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import type { JobService } from '../jobs/service.js';
import type { MediaRef } from '../sources/platform.js';
import type { Platforms } from '../sources/platforms.js';
import { shapeTranscript, type Transcript } from '../sources/transcript.js';
import { requireSpeech } from './ai/providers.js';
import { type SpeechJobInput, TRANSCRIPT_KIND } from './transcript-job.js';

export type TranscriptMode = 'native' | 'auto' | 'generate';

export interface TranscriptAsk {
  lang?: string;
  text?: boolean;
  chunkSize?: number;
  /** Chunks say their chapter, the text gets headings (captions of platforms with chapters only). */
  chapters?: boolean;
  mode: TranscriptMode;
}

/** Who asks: the account that pays, and the request the hold is recorded under. */
export interface TranscriptCaller {
  accountId: string;
  requestId: string;
}

export type TranscriptOutcome =
  /** The platform's captions, paid: `charged` credits taken, `remaining` left once they were. */
  | { kind: 'captions'; transcript: Transcript; charged: number; remaining: number }
  /** A speech-recognition job (the same one for a repeated request while it runs). */
  | ({ kind: 'speech_job'; jobId: string } & JobCredits);

export interface TranscriptDeps {
  platforms: Pick<Platforms, 'get' | 'checkAvailable' | 'locate'>;
  charges: Pick<RequestCharges, 'chargeAnswer' | 'whileSizing' | 'ofJob'>;
  /** Caption answers, kept as answered (shaped) so a repeated request is charged with no hold. */
  answers: { cache: ResultCache; ttlMs: number };
  jobs: Pick<JobService, 'submit'>;
  /** How this server recognises speech (an engine, a provider or neither) and the longest media it takes. */
  asr: Pick<Config['ai'], 'asrEngine' | 'asr'>;
  maxMediaSeconds: number;
  /** auto mode: a refused caption request falls back to speech recognition (UNFURL_TRANSCRIPT_BLOCK_FALLBACK). */
  fallbackOnBlock: boolean;
}

/** A caption answer's cache key: the video and everything that shapes the answer. */
const answerKey = (ref: MediaRef, ask: TranscriptAsk) =>
  `answer:transcript:${JSON.stringify([ref.platform, ref.id, ask.lang ?? '', ask.text ?? false, ask.chunkSize ?? 0])}`;

/** Thrown out of the paid work (so nothing is debited) when auto mode must fall back to speech. */
class NoNativeCaptions extends Error {}

/** Thrown out of the paid work when the platform refused the caption request itself. */
class CaptionsRefused extends Error {
  constructor(readonly refusal: AppError) {
    super(refusal.message);
  }
}

const speechConfigured = (asr: TranscriptDeps['asr']) => {
  try {
    requireSpeech(asr);
    return true;
  } catch {
    return false;
  }
};

export class Transcripts {
  constructor(private readonly deps: TranscriptDeps) {}

  async transcript(caller: TranscriptCaller, ref: MediaRef, ask: TranscriptAsk): Promise<TranscriptOutcome> {
    if (ask.mode === 'generate') return this.speechJob(caller, ref, ask);
    try {
      return await this.captions(caller, ref, ask);
    } catch (err) {
      if (err instanceof NoNativeCaptions) return this.speechJob(caller, ref, ask);
      // A refusal stays the answer where no speech recognition could stand in for the captions.
      if (err instanceof CaptionsRefused) {
        if (!speechConfigured(this.deps.asr)) throw err.refusal;
        return this.speechJob(caller, ref, ask);
      }
      throw err;
    }
  }

  private async captions(
    caller: TranscriptCaller,
    ref: MediaRef,
    ask: TranscriptAsk,
  ): Promise<TranscriptOutcome> {
    const platform = this.deps.platforms.get(ref.platform);
    const cost = prices.syncRequest;
    const { accountId, requestId } = caller;
    const charge = { accountId, requestId, cost, description: 'Transcript', operation: 'transcript' };
    const { cache, ttlMs } = this.deps.answers;
    const key = answerKey(ref, ask);
    // Chapters are the video's metadata, kept apart from its captions and by a rule of its own: an
    // answer with them is made anew from those two kept pieces, never kept itself, so it cannot
    // outlive or contradict either. (A platform without chapters answers as if none were asked.)
    const chaptersOf = ask.chapters ? platform.chapters?.bind(platform) : undefined;
    const peek = async () => (ttlMs > 0 && !chaptersOf ? cache.get<Transcript>(key) : undefined);
    const { result, remaining } = await this.deps.charges.chargeAnswer(charge, peek, async () => {
      try {
        const native = await platform.nativeTranscript(ref, { lang: ask.lang });
        const chapters = chaptersOf ? await chaptersOf(ref) : undefined;
        const shaped = shapeTranscript(native, { text: ask.text, chunkSize: ask.chunkSize, chapters });
        if (!chaptersOf) await cache.set(key, shaped, ttlMs);
        return shaped;
      } catch (err) {
        if (ask.mode === 'auto' && err instanceof AppError && err.code === 'transcript_unavailable') {
          throw new NoNativeCaptions();
        }
        // upstream_error is the platform's refusal or failure, never the video's own state (403/404).
        if (
          ask.mode === 'auto' &&
          this.deps.fallbackOnBlock &&
          err instanceof AppError &&
          err.code === 'upstream_error'
        ) {
          throw new CaptionsRefused(err);
        }
        throw err;
      }
    });
    return { kind: 'captions', transcript: result, charged: cost, remaining };
  }

  private async speechJob(
    caller: TranscriptCaller,
    ref: MediaRef,
    ask: TranscriptAsk,
  ): Promise<TranscriptOutcome> {
    const { platforms, charges, jobs, asr, maxMediaSeconds } = this.deps;
    const { accountId, requestId } = caller;
    // The platform's length sizes the hold; media that is private, gone or too long fails here, unbilled.
    const { location } = await charges.whileSizing(accountId, requestId, async () => {
      await platforms.checkAvailable(ref);
      requireSpeech(asr);
      return platforms.locate(ref.url);
    });
    if (location.durationSec !== null && location.durationSec > maxMediaSeconds) {
      throw new AppError(
        'payload_too_large',
        `The media lasts ${Math.ceil(location.durationSec / 60)} minutes; speech recognition takes at most ${maxMediaSeconds / 60}`,
        'url',
      );
    }
    // `lang` is only a hint to the recogniser, which reports the language it hears.
    const input: SpeechJobInput = {
      url: ref.url,
      ...(ask.lang !== undefined && { lang: ask.lang }),
      ...(ask.text !== undefined && { text: ask.text }),
      ...(ask.chunkSize !== undefined && { chunkSize: ask.chunkSize }),
      durationSec: location.durationSec,
    };
    const accepted = await jobs.submit({ accountId, kind: TRANSCRIPT_KIND, input });
    return { kind: 'speech_job', jobId: accepted.jobId, ...(await charges.ofJob(accountId, accepted)) };
  }
}
