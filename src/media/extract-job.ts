// Job kind `extract` (POST /v1/extract): structured data from a video — its transcript (captions,
// else speech recognition) and key frames given to the language model with the caller's JSON
// schema, or one the model proposes first. 5 credits per started minute (minimum 5): the minimum is
// held at acceptance, the rest once the media is measured.

import { Type } from '@sinclair/typebox';
import { creditsText, type PriceRow, startedMinutes } from '../billing/prices.js';
import { permanent } from '../errors.js';
import type { JobPoll } from '../jobs/types.js';
import { asObj, JobStatusSchema, storedResult } from '../jobs/views.js';
import { Nullable } from '../schemas.js';
import { budget } from './ai/budget.js';
import { type AiJobDeps, aiJobTimeoutMs, fetchMedia, MEDIA_JOBS_LIMIT } from './ai/job-media.js';
import { keyFrames } from './frames.js';
import { extractData, proposeSchema } from './llm/extract.js';
import type { JsonSchema } from './llm/schema.js';
import { frameParts, transcriptText, videoTranscript } from './vision/context.js';

export interface ExtractInput {
  url: string;
  prompt?: string;
  schema?: JsonSchema;
}

export interface ExtractResult {
  data: unknown;
  /** The schema the data follows: the caller's, or the one the model proposed. */
  schema: JsonSchema;
}

/** The kind's name: its queue, and the `kind` its route submits. */
export const EXTRACT_KIND = 'extract';

/** The extract poll answer (and webhook data): the data and its schema; `error` is an object. */
export const extractPoll: JobPoll = {
  schema: Type.Object({
    status: JobStatusSchema,
    data: Type.Unknown({
      description: 'The data extracted, following `schema`; null until the job completes',
    }),
    schema: Type.Unknown({
      description: "The JSON schema the data follows: the caller's, or the one the model proposed",
    }),
    error: Nullable(
      Type.Object({
        error: Type.String({ description: 'The error code' }),
        message: Type.String(),
        details: Type.Null(),
      }),
    ),
  }),
  view(job) {
    const r = asObj(storedResult(job));
    return {
      status: job.status,
      data: r.data ?? null,
      schema: r.schema ?? null,
      error:
        job.status === 'failed'
          ? { error: job.error_code ?? 'internal_error', message: job.error ?? '', details: null }
          : null,
    };
  },
};

/** Frames shown to the model (with the transcript) and their size. */
export const EXTRACT_FRAMES = 8;
export const EXTRACT_FRAME_RESOLUTION = 512;

/** Extract's rates, in credits: per started minute of video, never below the minimum. */
export const EXTRACT_PRICES = { perMinute: 5, minimum: 5 } as const;

/** Its row of the price table. */
export const EXTRACT_PRICE: PriceRow = {
  operation: 'Extract',
  price: `${creditsText(EXTRACT_PRICES.perMinute)} per started minute (minimum ${EXTRACT_PRICES.minimum})`,
};

export const extractCredits = (seconds: number) =>
  Math.max(EXTRACT_PRICES.minimum, EXTRACT_PRICES.perMinute * startedMinutes(seconds));

const charged = new WeakMap<object, number>();

export function registerExtract(deps: AiJobDeps): void {
  deps.registry.register<ExtractInput, ExtractResult>({
    kind: EXTRACT_KIND,
    perAccount: MEDIA_JOBS_LIMIT,
    poll: extractPoll,
    inputSchema: Type.Object({
      url: Type.String(),
      prompt: Type.Optional(Type.String()),
      schema: Type.Optional(Type.Any()),
    }),
    price: EXTRACT_PRICE,
    concurrency: 2,
    timeoutMs: aiJobTimeoutMs(deps.settings),
    estimate: () => EXTRACT_PRICES.minimum,
    cost: (_input, result) => charged.get(result) ?? EXTRACT_PRICES.minimum,
    run: (ctx, input) =>
      deps.scratch.with(`extract-${ctx.jobId}`, async (dir) => {
        const calls = { budget: budget(deps.settings.jobBudgetMs), signal: ctx.signal };
        const media = await fetchMedia(deps, input.url, dir, ctx.signal, deps.settings.maxMediaSeconds);
        const seconds = media.probed.durationSec;
        await ctx.holdMore(extractCredits(seconds) - EXTRACT_PRICES.minimum);
        const transcript = await videoTranscript(deps, media, { ...calls, dir });
        const frames = media.probed.hasVideo
          ? await keyFrames(media.file, {
              max: EXTRACT_FRAMES,
              maxResolution: EXTRACT_FRAME_RESOLUTION,
              dir,
              signal: ctx.signal,
              probed: media.probed,
            })
          : [];
        if (!transcript && frames.length === 0) {
          throw permanent('The media has neither pictures nor speech to extract from', 'invalid_request');
        }
        const context = {
          prompt: input.prompt,
          transcript: transcript ? transcriptText(transcript.cues) : null,
          frames: await frameParts(frames, 'low'),
        };
        const schema = input.schema ?? (await proposeSchema(deps.ai.llm, context, calls));
        const data = await extractData(deps.ai.llm, schema, context, calls);
        const result: ExtractResult = { data, schema };
        charged.set(result, extractCredits(seconds));
        return result;
      }),
  });
}
