// Job kind `describe` (POST /v1/video/describe): key frames where the picture changes, scaled to
// `maxResolution`, described by the vision model with the caller's prompt — or, with mode=ocr, the
// text shown on them. Holds 5 + maxFrames, settles 5 + frames used; a transcript that needs speech
// recognition (includeTranscript without captions) adds 2 credits per started minute of sound.

import { Type } from '@sinclair/typebox';
import { creditsText, type PriceRow } from '../billing/prices.js';
import { permanent } from '../errors.js';
import type { JobPoll } from '../jobs/types.js';
import { dataView, ErrorTextSchema, JobStatusSchema } from '../jobs/views.js';
import { StringEnum } from '../schemas.js';
import type { Transcript } from '../sources/transcript.js';
import { budget } from './ai/budget.js';
import { type AiJobDeps, aiJobTimeoutMs, fetchMedia, MEDIA_JOBS_LIMIT } from './ai/job-media.js';
import { type KeyFrame, keyFrames } from './frames.js';
import { SPEECH_PRICES, speechCredits as speechCreditsOf } from './transcript-job.js';
import { clock, videoTranscript } from './vision/context.js';
import { describeFrames } from './vision/describe.js';

export interface DescribeInput {
  url: string;
  mode: 'describe' | 'ocr';
  prompt?: string;
  maxFrames: number;
  maxResolution: number;
  includeTranscript: boolean;
}

export interface DescribeResult {
  description: string;
  frames: Array<{ timeMs: number; width: number; height: number }>;
  transcript?: Transcript | null;
}

/** Reads the text shown on frames (the OCR engine), one string per frame. */
export type FrameTextReader = (frames: readonly KeyFrame[], signal: AbortSignal) => Promise<string[]>;

export const DescribeBody = Type.Object({
  url: Type.String({
    minLength: 1,
    maxLength: 2048,
    description: 'Video URL (any supported platform, or a direct video file)',
  }),
  mode: Type.Optional(
    StringEnum(['describe', 'ocr'] as const, {
      default: 'describe',
      description: '`describe`: the vision model describes the frames; `ocr`: the text shown on them',
    }),
  ),
  prompt: Type.Optional(Type.String({ maxLength: 4000, description: 'What to ask about the video' })),
  maxFrames: Type.Optional(Type.Integer({ minimum: 1, maximum: 20, default: 8 })),
  maxResolution: Type.Optional(
    Type.Integer({ minimum: 64, maximum: 2048, default: 512, description: 'Longest side of each frame, px' }),
  ),
  includeTranscript: Type.Optional(Type.Boolean({ default: false })),
});

/** The kind's name: its queue, and the `kind` its route submits. */
export const DESCRIBE_KIND = 'describe';

/** The describe poll answer (and webhook data): `{status, data, error}`, `data` being the result. */
export const describePoll: JobPoll = {
  schema: Type.Object({
    status: JobStatusSchema,
    data: Type.Unknown({
      description:
        'The result: `description`, `frames` ({timeMs, width, height}) and, with includeTranscript, `transcript`; null until the job completes',
    }),
    error: ErrorTextSchema,
  }),
  view: dataView,
};

/**
 * Describe's rates, in credits: a base and each frame used (a transcript that needs speech recognition
 * adds speech's rate, SPEECH_PRICES).
 */
export const DESCRIBE_PRICES = { base: 5, perFrame: 1 } as const;

/** Its row of the price table. */
export const DESCRIBE_PRICE: PriceRow = {
  operation: 'Describe',
  price: `${creditsText(DESCRIBE_PRICES.base)} + ${DESCRIBE_PRICES.perFrame} per frame (+ ${SPEECH_PRICES.perMinute} per started minute when includeTranscript needs speech recognition)`,
};

const describeCredits = (frames: number) => DESCRIBE_PRICES.base + DESCRIBE_PRICES.perFrame * frames;

export const describeEstimate = (input: DescribeInput) => describeCredits(input.maxFrames);

const charged = new WeakMap<object, number>();

export function registerDescribe(deps: AiJobDeps & { readText: FrameTextReader }): void {
  deps.registry.register<DescribeInput, DescribeResult>({
    kind: DESCRIBE_KIND,
    perAccount: MEDIA_JOBS_LIMIT,
    poll: describePoll,
    inputSchema: DescribeBody,
    price: DESCRIBE_PRICE,
    concurrency: 2,
    timeoutMs: aiJobTimeoutMs(deps.settings),
    estimate: describeEstimate,
    cost: (input, result) =>
      charged.get(result) ?? describeCredits(Math.min(result.frames.length, input.maxFrames)),
    run: (ctx, input) =>
      deps.scratch.with(`describe-${ctx.jobId}`, async (dir) => {
        const calls = { budget: budget(deps.settings.jobBudgetMs), signal: ctx.signal };
        const media = await fetchMedia(deps, input.url, dir, ctx.signal, deps.settings.maxMediaSeconds);
        if (!media.probed.hasVideo) throw permanent('The URL has no pictures to describe', 'invalid_request');
        let speechCredits = 0;
        const transcript = input.includeTranscript
          ? await videoTranscript(deps, media, {
              ...calls,
              dir,
              onSpeech: async (seconds) => {
                speechCredits = speechCreditsOf(seconds);
                await ctx.holdMore(speechCredits);
              },
            })
          : null;
        const frames = await keyFrames(media.file, {
          max: input.maxFrames,
          maxResolution: input.maxResolution,
          dir,
          signal: ctx.signal,
          probed: media.probed,
        });
        const description =
          input.mode === 'ocr'
            ? ocrText(frames, await deps.readText(frames, ctx.signal))
            : await describeFrames(
                deps.ai.vision,
                {
                  prompt: input.prompt,
                  frames,
                  maxResolution: input.maxResolution,
                  cues: transcript?.cues ?? null,
                },
                calls,
              );
        const result: DescribeResult = {
          description,
          frames: frames.map((f) => ({ timeMs: f.timeMs, width: f.width, height: f.height })),
          ...(input.includeTranscript && { transcript: transcript?.transcript ?? null }),
        };
        charged.set(result, describeCredits(frames.length) + speechCredits);
        return result;
      }),
  });
}

/** mode=ocr: the text of each frame after its time, frames showing the same text as the one before left out. */
function ocrText(frames: readonly KeyFrame[], texts: readonly string[]): string {
  const lines: string[] = [];
  let previous = '';
  frames.forEach((f, i) => {
    const text = (texts[i] ?? '').replace(/\s+/g, ' ').trim();
    if (text && text !== previous) lines.push(`[${clock(f.timeMs)}] ${text}`);
    previous = text;
  });
  return lines.join('\n');
}
