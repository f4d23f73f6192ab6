// Job kind `transcript`: speech recognition of a video or audio URL (GET /v1/transcript with
// mode=generate, or auto without captions). Holds 2 credits per started minute of what the platform
// says the media lasts (a default when it does not say), tops the hold up once the sound is
// measured, and settles on the measured length.

import { createHash } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { creditsText, type PriceRow, startedMinutes } from '../billing/prices.js';
import { permanent } from '../errors.js';
import type { JobPoll } from '../jobs/types.js';
import { dataView, ErrorTextSchema, JobStatusSchema } from '../jobs/views.js';
import { shapeTranscript, type Transcript } from '../sources/transcript.js';
import { budget } from './ai/budget.js';
import { type AiJobDeps, aiJobTimeoutMs, fetchMedia, MEDIA_JOBS_LIMIT } from './ai/job-media.js';
import { recogniseSpeech } from './asr/recognise.js';

export interface SpeechJobInput {
  /** The video's canonical URL (located again when the job runs: media URLs expire). */
  url: string;
  /** The language the caller asked for: a hint to the recogniser, which reports what it heard. */
  lang?: string;
  text?: boolean;
  chunkSize?: number;
  /** What the platform said the media lasts when the job was submitted (null: unknown). */
  durationSec: number | null;
}

export const SpeechJobInputSchema = Type.Object({
  url: Type.String(),
  lang: Type.Optional(Type.String({ maxLength: 35 })),
  text: Type.Optional(Type.Boolean()),
  chunkSize: Type.Optional(Type.Integer()),
  durationSec: Type.Union([Type.Number(), Type.Null()]),
});

/** The kind's name: its queue, and the `kind` GET /v1/transcript submits. */
export const TRANSCRIPT_KIND = 'transcript';

const TranscriptData = Type.Unknown({
  description: 'The transcript, as GET /v1/transcript answers it; null until the job completes',
});

/**
 * The transcript poll answer (and webhook data): `{status, data, error}`, and `result` (the same as
 * `data`) where the hosted API's SDKs read it.
 */
export const transcriptPoll: JobPoll = {
  schema: Type.Object({
    status: JobStatusSchema,
    data: TranscriptData,
    error: ErrorTextSchema,
    result: TranscriptData,
  }),
  view(job) {
    const { status, data, error } = dataView(job);
    return { status, data, error, result: data };
  },
};

/** Held when the length is unknown until the file is probed. */
export const UNKNOWN_LENGTH_SECONDS = 10 * 60;

/** Speech recognition's rates, in credits: per started minute of sound (describe's transcripts too). */
export const SPEECH_PRICES = { perMinute: 2 } as const;

/** Its row of the price table. */
export const SPEECH_PRICE: PriceRow = {
  operation: 'Speech recognition (transcript `mode=generate`/`auto` fallback)',
  price: `${creditsText(SPEECH_PRICES.perMinute)} per started minute`,
};

export const speechCredits = (seconds: number) => SPEECH_PRICES.perMinute * startedMinutes(seconds);

/** Credits settled per result object (cost() is handed the object run() returned). */
const measured = new WeakMap<object, number>();

export function registerSpeechTranscripts(deps: AiJobDeps): void {
  const { settings } = deps;
  const estimate = (input: SpeechJobInput) =>
    speechCredits(Math.min(input.durationSec ?? UNKNOWN_LENGTH_SECONDS, settings.maxMediaSeconds));
  deps.registry.register<SpeechJobInput, Transcript>({
    kind: TRANSCRIPT_KIND,
    perAccount: MEDIA_JOBS_LIMIT,
    poll: transcriptPoll,
    inputSchema: SpeechJobInputSchema,
    price: SPEECH_PRICE,
    concurrency: 2,
    // A process without speech recognition leaves these jobs to the workers that have it.
    runsHere: () => deps.ai.speech !== null,
    timeoutMs: aiJobTimeoutMs(settings),
    estimate,
    dedupeKey: (input) =>
      createHash('sha256')
        .update(JSON.stringify([input.url, input.text ?? false, input.chunkSize ?? null, input.lang ?? null]))
        .digest('hex'),
    cost: (input, result) => measured.get(result) ?? estimate(input),
    run: (ctx, input) =>
      deps.scratch.with(`transcript-${ctx.jobId}`, async (dir) => {
        const media = await fetchMedia(deps, input.url, dir, ctx.signal, settings.maxMediaSeconds);
        if (!media.probed.hasAudio) {
          throw permanent('The media has no sound to recognise', 'transcript_unavailable');
        }
        const recogniser = deps.ai.speech;
        if (!recogniser) throw permanent('Speech recognition is not configured here', 'provider_unavailable');
        const speech = await recogniseSpeech(media.file, {
          recogniser,
          dir,
          ...(input.lang && { lang: input.lang }),
          maxSeconds: settings.maxMediaSeconds,
          budget: budget(settings.jobBudgetMs),
          signal: ctx.signal,
          onDuration: (seconds) => ctx.holdMore(speechCredits(seconds) - estimate(input)),
        });
        if (speech.cues.length === 0) {
          // Never an empty transcript: the caller is told and not charged.
          throw permanent('No speech was recognised in the media', 'transcript_unavailable');
        }
        const result = shapeTranscript(
          { cues: speech.cues, lang: speech.lang, availableLangs: [] },
          { text: input.text, chunkSize: input.chunkSize },
        );
        measured.set(result, speechCredits(speech.durationSec));
        return result;
      }),
  });
}
